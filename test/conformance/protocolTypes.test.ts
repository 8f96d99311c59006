import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type * as z from "zod";
import type * as registry from "../../src/protocol/methods.js";
import { protocolNames } from "../../src/protocol/names.js";
import { generateTypeScript } from "../../src/protocol/typeScript.js";
import { clientRequests, schemas, serverNotifications } from "../../src/protocol/index.js";
import type { ClientNotifications, ClientRequests, ProtocolTypes, ServerNotifications, ServerRequests, ThreadItem } from "../../src/protocol/index.js";

// Type-level: each generated wire type matches its zod schema both ways. `tsc -p test` fails on a
// mismatch, naming the method and the side ("output": what the schema yields is not the type;
// "input": a value of the type is not what the schema takes).
type Match<Wire, Schema extends z.ZodType> = [z.output<Schema>] extends [Wire] ? ([Wire] extends [z.input<Schema>] ? true : "input") : "output";
type RequestMatch<Maps extends { [M in keyof Maps]: { params: unknown; result: unknown } }, Specs extends { [M in keyof Maps]: { params: z.ZodType; result: z.ZodType } }> = {
  [M in keyof Maps]: [Match<Maps[M]["params"], Specs[M]["params"]>, Match<Maps[M]["result"], Specs[M]["result"]>];
};
type NotificationMatch<Maps, Specs extends { [M in keyof Maps]: { params: z.ZodType } }> = { [M in keyof Maps]: Match<Maps[M], Specs[M]["params"]> };

export const clientRequestsMatch: { [M in keyof ClientRequests]: [true, true] } = null! as RequestMatch<ClientRequests, typeof registry.clientRequests>;
export const serverRequestsMatch: { [M in keyof ServerRequests]: [true, true] } = null! as RequestMatch<ServerRequests, typeof registry.serverRequests>;
export const serverNotificationsMatch: { [M in keyof ServerNotifications]: true } = null! as NotificationMatch<
  ServerNotifications,
  typeof registry.serverNotifications
>;
export const clientNotificationsMatch: { [M in keyof ClientNotifications]: true } = null! as NotificationMatch<
  ClientNotifications,
  typeof registry.clientNotifications
>;
// The maps cover the registry's methods, no more and no fewer.
export const sameMethods: [keyof ClientRequests, keyof ServerNotifications] = null! as [keyof typeof registry.clientRequests, keyof typeof registry.serverNotifications];
export const sameMethodsBack: [keyof typeof registry.clientRequests, keyof typeof registry.serverNotifications] = null! as [keyof ClientRequests, keyof ServerNotifications];

describe("src/protocol/types.ts", () => {
  it("is what the zod definitions generate (run `npm run schema` after changing src/protocol)", () => {
    expect(readFileSync(path.resolve("src/protocol/types.ts"), "utf8")).toBe(generateTypeScript());
  });

  it("names the shapes clients use, and every message type", () => {
    const names = protocolNames();
    for (const name of ["ThreadItem", "Thread", "Turn", "UserInput", "TurnStartParams", "ThreadStartResponse", "ItemCompletedNotification", "JSONRPCRequest"]) {
      expect(names.types.has(name) || names.aliases.has(name), name).toBe(true);
    }
  });
});

describe("agent-app-server/protocol schemas", () => {
  it("has a zod schema for every type name, and the method registries", () => {
    const names = protocolNames();
    expect(Object.keys(schemas).sort()).toEqual([...names.types.keys(), ...names.aliases.keys()].sort());
    const item: ThreadItem = schemas.ThreadItem.parse({ type: "agentMessage", id: "i", text: "hi" });
    expect(item).toEqual({ type: "agentMessage", id: "i", text: "hi" });
    expect(schemas.ThreadArchiveParams).toBe(schemas.ThreadIdParams);
    expect(clientRequests["turn/start"].params.safeParse({ threadId: 1 }).success).toBe(false);
    expect(serverNotifications["item/agentMessage/delta"].params.parse({ threadId: "t", turnId: "u", itemId: "i", delta: "d" }).delta).toBe("d");
    const typed: ProtocolTypes["Turn"] | undefined = undefined;
    expect(typed).toBeUndefined();
  });
});
