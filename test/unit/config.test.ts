import { describe, expect, it } from "vitest";
import { parseArgs, parseCommandLine } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/usageError.js";
import { locateKey } from "../../src/config/keyLocator.js";
import { applyOverride, parseOverride } from "../../src/config/overrides.js";

describe("-c overrides", () => {
  it("parses TOML values, falling back to the raw string", () => {
    expect(parseOverride("model=gpt-5.5")).toMatchObject({ path: ["model"], value: "gpt-5.5" });
    expect(parseOverride('model="gpt-5.5"').value).toBe("gpt-5.5");
    expect(parseOverride("a.b.c=3").value).toBe(3);
    expect(parseOverride("x=[1, 2]").value).toEqual([1, 2]);
    expect(parseOverride('p={name="m", n=0}').value).toEqual({ name: "m", n: 0 });
    expect(parseOverride("flag=true").value).toBe(true);
    expect(() => parseOverride("novalue")).toThrow("expected key=value");
    expect(() => parseOverride("a..b=1")).toThrow("empty key segment");
  });

  it("sets values at dotted paths, replacing non-tables on the way", () => {
    const target: Record<string, unknown> = { a: 1, m: { keep: true } };
    applyOverride(target, parseOverride("a.b=2"));
    applyOverride(target, parseOverride("m.x=3"));
    expect(target).toEqual({ a: { b: 2 }, m: { keep: true, x: 3 } });
  });
});

describe("locateKey", () => {
  const toml = 'model = "x"\n\n[model_providers.mock]\nname = "m"\nwire_api = "w"\n\n[mcp_servers.a]\ncommand = "c"\n';
  it("finds a top-level key, a key in a table, and falls back to the table header", () => {
    expect(locateKey(toml, ["model"])).toBe(1);
    expect(locateKey(toml, ["model_providers", "mock", "wire_api"])).toBe(5);
    expect(locateKey(toml, ["mcp_servers", "a", "args"])).toBe(7);
    expect(locateKey(toml, ["missing"])).toBeUndefined();
  });
});

describe("parseArgs", () => {
  it("reads serve flags and subcommands", () => {
    expect(
      parseArgs(["app-server", "-c", "a=1", "--config=b=2", "--max-line-bytes", "10", "--jsonrpc", "--deterministic", "--script", "s.json"]),
    ).toEqual({
      kind: "serve",
      listen: { kind: "stdio" },
      ws: { auth: "none", tokenFile: null, tokenSha256: null, allowedOrigins: [] },
      // --script puts the scripted provider first, so a -c model_provider flag still wins.
      overrides: [
        expect.objectContaining({ path: ["model_provider"], value: "scripted", source: "--script" }),
        expect.objectContaining({ path: ["a"], value: 1 }),
        expect.objectContaining({ path: ["b"], value: 2 }),
      ],
      maxLineBytes: 10,
      includeJsonrpc: true,
      deterministic: true,
      script: "s.json",
      sessionLog: null,
      strictConfig: false,
    });
    expect(parseArgs(["replay", "a.json", "b.json", "--check"])).toEqual({ kind: "replay", scenarios: ["a.json", "b.json"], mode: "check" });
    expect(parseArgs(["demo", "--live"])).toEqual({ kind: "demo", live: true });
    // After `--`, the server's options only.
    expect(parseArgs(["record", "--out", "d/n", "--", "-c", 'model="o3"', "--listen", "unix://"])).toMatchObject({
      kind: "record",
      out: "d/n",
      serve: { listen: { kind: "unix" }, overrides: [expect.objectContaining({ path: ["model"], value: "o3" })] },
    });
    expect(() => parseArgs(["record", "--out", "d/n", "--", "--out", "e/m"])).toThrow("unknown argument to record: --out");
    expect(parseArgs(["--listen", "ws://127.0.0.1:4500", "--ws-token-file", "/t", "--ws-allow-origin", "http://localhost:3000"])).toMatchObject({
      listen: { kind: "ws", host: "127.0.0.1", port: 4500 },
      ws: { auth: "capability-token", tokenFile: "/t", allowedOrigins: ["http://localhost:3000"] },
    });
    expect(parseArgs(["generate-json-schema", "--out", "d"])).toEqual({ kind: "generate-json-schema", outDir: "d" });
    expect(parseArgs(["-V"])).toEqual({ kind: "version" });
  });

  it("reads Codex's grammar: global options, app-server, its options, a subcommand", () => {
    const serve = parseArgs(["-c", "a=1", "--enable", "unified_exec", "-m", "o3", "app-server", "--disable", "shell_snapshot", "--listen", "unix:///tmp/s.sock", "--strict-config"]);
    expect(serve).toMatchObject({
      kind: "serve",
      listen: { kind: "unix", path: "/tmp/s.sock" },
      strictConfig: true,
      overrides: [
        expect.objectContaining({ path: ["a"], value: 1 }),
        expect.objectContaining({ path: ["features", "unified_exec"], value: true }),
        expect.objectContaining({ path: ["features", "shell_snapshot"], value: false }),
      ],
    });
    expect(parseArgs(["app-server", "--listen", "unix://"])).toMatchObject({ listen: { kind: "unix", path: null } });
    expect(parseArgs(["app-server", "--listen=off"])).toMatchObject({ listen: { kind: "off" } });
    expect(parseArgs(["--config", "k=v", "app-server", "generate-ts", "-o", "d", "--experimental"])).toEqual({ kind: "generate-ts", outDir: "d" });
    expect(parseArgs(["app-server", "--print-startup-config", "-c", "x=1"])).toMatchObject({ kind: "print-startup-config", strictConfig: false });
    expect(parseCommandLine(["--search", "app-server", "--ws-issuer", "me"]).ignored).toEqual([
      "--search: configures Codex's interactive UI, not the app-server (Codex ignores it here too)",
      "--ws-issuer: signed JWT WebSocket auth is not supported (use --ws-auth capability-token)",
    ]);
    expect(() => parseArgs(["app-server", "app-server"])).toThrow("unknown app-server subcommand: app-server");
    expect(() => parseArgs(["app-server", "replay", "x.json"])).toThrow("unknown app-server subcommand: replay");
  });

  it("explains what is wrong", () => {
    expect(() => parseArgs(["-c"])).toThrow(new UsageError("-c needs a value"));
    expect(() => parseArgs(["--max-line-bytes", "0"])).toThrow("needs a positive integer");
    expect(() => parseArgs(["generate-json-schema"])).toThrow("needs --out DIR");
  });
});
