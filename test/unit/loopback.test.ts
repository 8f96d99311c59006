import { describe, expect, it } from "vitest";
import { boundAddressProblem, isLoopbackAddress, resolveListenAddress, type HostResolver } from "../../src/transport/loopback.js";

/** A resolver that answers from a table and fails on any other name. */
function resolverOf(table: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const addresses = table[host];
    if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    return addresses;
  };
  return Object.assign(resolve, { asked });
}

describe("loopback addresses", () => {
  it("are 127.0.0.0/8, ::1 in any spelling and IPv4-mapped 127.x; nothing else, and no names", () => {
    for (const address of ["127.0.0.1", "127.255.3.4", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::ffff:7f00:1"]) {
      expect([address, isLoopbackAddress(address)]).toEqual([address, true]);
    }
    for (const address of ["0.0.0.0", "::", "128.0.0.1", "192.0.2.2", "::ffff:10.0.0.1", "::2", "localhost", "127.example", "[::1]"]) {
      expect([address, isLoopbackAddress(address)]).toEqual([address, false]);
    }
  });
});

describe("resolveListenAddress", () => {
  it("refuses, without auth, a name that looks like loopback but resolves elsewhere, naming the address", async () => {
    const resolve = resolverOf({ "127.evil.example": ["192.0.2.7"] });
    const refused = await resolveListenAddress("127.evil.example", true, resolve);
    expect(refused).toEqual({
      ok: false,
      message:
        "refusing to start a non-loopback WebSocket listener on 127.evil.example (192.0.2.7) without auth: other machines could connect and run commands. " +
        "Listen on 127.0.0.1, [::1] or localhost, or require a token with --ws-auth capability-token --ws-token-file PATH.",
    });
  });

  it("refuses a name when any one of its addresses is not loopback", async () => {
    const resolve = resolverOf({ mixed: ["127.0.0.1", "::1", "192.0.2.7", "::ffff:10.1.2.3"] });
    const refused = await resolveListenAddress("mixed", true, resolve);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.message).toContain("on mixed (192.0.2.7, ::ffff:10.1.2.3) without auth");
  });

  it("binds the first address of a name that is loopback only; an IP address is not looked up", async () => {
    const resolve = resolverOf({ localhost: ["::1", "127.0.0.1"] });
    expect(await resolveListenAddress("localhost", true, resolve)).toEqual({ ok: true, address: "::1" });
    expect(await resolveListenAddress("127.0.0.2", true, resolve)).toEqual({ ok: true, address: "127.0.0.2" });
    expect(await resolveListenAddress("::1", true, resolve)).toEqual({ ok: true, address: "::1" });
    expect(resolve.asked).toEqual(["localhost"]);
    expect(await resolveListenAddress("0.0.0.0", true, resolve)).toMatchObject({ ok: false, message: expect.stringContaining("listener on 0.0.0.0 without auth") });
  });

  it("with auth any address may be bound, still the one resolved", async () => {
    const resolve = resolverOf({ "lan.example": ["192.0.2.7", "192.0.2.8"] });
    expect(await resolveListenAddress("lan.example", false, resolve)).toEqual({ ok: true, address: "192.0.2.7" });
    expect(await resolveListenAddress("0.0.0.0", false, resolve)).toEqual({ ok: true, address: "0.0.0.0" });
  });

  it("says so when the name does not resolve", async () => {
    expect(await resolveListenAddress("nowhere.invalid", true, resolverOf({}))).toEqual({
      ok: false,
      message: "cannot resolve the --listen host nowhere.invalid (getaddrinfo ENOTFOUND nowhere.invalid); give an IP address such as 127.0.0.1.",
    });
    expect(await resolveListenAddress("empty", true, resolverOf({ empty: [] }))).toMatchObject({ ok: false, message: expect.stringContaining("resolves to no address") });
  });
});

describe("boundAddressProblem", () => {
  it("accepts a loopback address actually bound and refuses any other", () => {
    expect(boundAddressProblem("localhost", "127.0.0.1")).toBeNull();
    expect(boundAddressProblem("localhost", "::1")).toBeNull();
    expect(boundAddressProblem("localhost", "::")).toContain("listener on localhost (::) without auth");
  });
});
