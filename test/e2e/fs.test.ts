import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";

const dirs: string[] = [];
/** A fresh temp directory, by its real path (the server answers with and checks real paths). */
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A server whose working directory is a fresh workspace, with an optional config.toml. */
async function serve(configToml?: string): Promise<{ server: ServerProcess; workspace: string }> {
  const workspace = tempDir("aas-fs-ws-");
  const home = tempDir("aas-fs-home-");
  if (configToml) writeFileSync(path.join(home, "config.toml"), configToml);
  const server = ServerProcess.start({ home, cwd: workspace });
  await server.initialize();
  return { server, workspace };
}

async function ok(server: ServerProcess, method: string, params: object): Promise<any> {
  const response = await server.request(method, params);
  expect(response.error, `${method} ${JSON.stringify(params)}`).toBeUndefined();
  return response.result;
}

async function fails(server: ServerProcess, method: string, params: object): Promise<{ code: number; message: string; data?: any }> {
  const response = await server.request(method, params);
  expect(response.result, `${method} ${JSON.stringify(params)} should fail`).toBeUndefined();
  return response.error;
}

/** The stored entries of a ZIP, by name, each checked against its CRC-32 (a reader independent of the writer). */
function readZip(zip: Buffer): Map<string, string> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const [crc, size, nameLength, extra, comment, offset] = [zip.readUInt32LE(at + 16), zip.readUInt32LE(at + 20), zip.readUInt16LE(at + 28), zip.readUInt16LE(at + 30), zip.readUInt16LE(at + 32), zip.readUInt32LE(at + 42)];
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const dataStart = offset + 30 + zip.readUInt16LE(offset + 26) + zip.readUInt16LE(offset + 28);
    const data = zip.subarray(dataStart, dataStart + size);
    expect(crc32(data), name).toBe(crc);
    entries.set(name, data.toString("utf8"));
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

function write(file: string, content: string | Buffer = "x"): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

describe("fs/*", () => {
  it("reads, writes, lists, inspects, creates, copies and removes inside the workspace", async () => {
    const { server, workspace } = await serve();
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const bin = path.join(workspace, "data.bin");
    expect(await ok(server, "fs/writeFile", { path: bin, dataBase64: bytes.toString("base64") })).toEqual({});
    expect(readFileSync(bin).equals(bytes)).toBe(true);
    expect(await ok(server, "fs/readFile", { path: bin })).toEqual({ dataBase64: bytes.toString("base64") });

    const nested = path.join(workspace, "a", "b", "c");
    expect(await ok(server, "fs/createDirectory", { path: nested })).toEqual({});
    expect(existsSync(nested)).toBe(true);
    await ok(server, "fs/createDirectory", { path: nested, recursive: true }); // already there: fine
    const orphan = await fails(server, "fs/createDirectory", { path: path.join(workspace, "x", "y"), recursive: false });
    expect(orphan.code).toBe(-32603);
    expect(orphan.message).toContain("parent directory does not exist");
    symlinkSync(bin, path.join(workspace, "link.bin"));

    const listing = await ok(server, "fs/readDirectory", { path: workspace });
    expect(listing.entries).toEqual([
      { fileName: "a", isDirectory: true, isFile: false },
      { fileName: "data.bin", isDirectory: false, isFile: true },
      { fileName: "link.bin", isDirectory: false, isFile: true },
    ]);

    const fileInfo = await ok(server, "fs/getMetadata", { path: bin });
    expect(fileInfo).toMatchObject({ isFile: true, isDirectory: false, isSymlink: false });
    expect(Math.abs(fileInfo.modifiedAtMs - Date.now())).toBeLessThan(60_000);
    expect(Number.isInteger(fileInfo.createdAtMs)).toBe(true);
    expect(await ok(server, "fs/getMetadata", { path: nested })).toMatchObject({ isFile: false, isDirectory: true, isSymlink: false });
    expect(await ok(server, "fs/getMetadata", { path: path.join(workspace, "link.bin") })).toMatchObject({ isFile: true, isSymlink: true });

    write(path.join(nested, "deep.txt"), "deep");
    await ok(server, "fs/copy", { sourcePath: bin, destinationPath: path.join(workspace, "copy.bin") });
    expect(readFileSync(path.join(workspace, "copy.bin")).equals(bytes)).toBe(true);
    const dirCopy = await fails(server, "fs/copy", { sourcePath: path.join(workspace, "a"), destinationPath: path.join(workspace, "a2") });
    expect(dirCopy.code).toBe(-32600);
    expect(dirCopy.message).toContain("pass recursive: true");
    await ok(server, "fs/copy", { sourcePath: path.join(workspace, "a"), destinationPath: path.join(workspace, "a2"), recursive: true });
    expect(readFileSync(path.join(workspace, "a2", "b", "c", "deep.txt"), "utf8")).toBe("deep");

    const notEmpty = await fails(server, "fs/remove", { path: path.join(workspace, "a"), recursive: false });
    expect(notEmpty.code).toBe(-32603);
    expect(notEmpty.message).toContain("not empty");
    expect(existsSync(path.join(nested, "deep.txt"))).toBe(true);
    await ok(server, "fs/remove", { path: path.join(workspace, "a") });
    expect(existsSync(path.join(workspace, "a"))).toBe(false);
    await ok(server, "fs/remove", { path: path.join(workspace, "a") }); // missing, force defaults to true
    const missing = await fails(server, "fs/remove", { path: path.join(workspace, "a"), force: false });
    expect(missing.message).toBe(`fs/remove failed: ${path.join(workspace, "a")} does not exist`);
    expect(missing.data).toEqual({ code: "ENOENT", path: path.join(workspace, "a") });
  });

  it("watches a directory tree and a file: fs/changed names what changed, until fs/unwatch", async () => {
    const { server, workspace } = await serve();
    const changed = (watchId: string, file: string) =>
      server.waitFor((m) => m.method === "fs/changed" && m.params.watchId === watchId && m.params.changedPaths.includes(file), `fs/changed ${watchId} ${file}`);
    write(path.join(workspace, "src", "keep.txt"));
    expect(await ok(server, "fs/watch", { path: workspace, watchId: "tree" })).toEqual({ path: workspace });
    const single = path.join(workspace, "notes.md");
    write(single, "one");
    expect(await ok(server, "fs/watch", { path: single, watchId: "file" })).toEqual({ path: single });
    const deep = path.join(workspace, "src", "deep.ts");
    write(deep, "export {};");
    await changed("tree", deep);
    // An editor that saves by writing a copy and renaming it over the file is still seen.
    writeFileSync(`${single}.tmp`, "two");
    execFileSync("mv", [`${single}.tmp`, single]);
    await changed("file", single);
    expect(server.messages.filter((m) => m.method === "fs/changed" && m.params.watchId === "file").flatMap((m) => m.params.changedPaths)).toEqual(
      expect.arrayContaining([single]),
    );
    expect(server.messages.some((m) => m.method === "fs/changed" && m.params.watchId === "file" && m.params.changedPaths.includes(deep))).toBe(false);
    expect(await fails(server, "fs/watch", { path: workspace, watchId: "tree" })).toMatchObject({ code: -32600, message: 'fs/watch id "tree" is already in use on this connection' });
    expect(await ok(server, "fs/unwatch", { watchId: "tree" })).toEqual({});
    expect(await fails(server, "fs/unwatch", { watchId: "tree" })).toEqual({ code: -32600, message: 'no fs/watch with id "tree" on this connection' });
    await ok(server, "fs/unwatch", { watchId: "file" });
    // A watch still running sees the next change; the stopped ones, watching the same places, do not.
    await ok(server, "fs/watch", { path: workspace, watchId: "control" });
    const after = path.join(workspace, "after.txt");
    write(after);
    await changed("control", after);
    expect(server.messages.filter((m) => m.method === "fs/changed" && m.params.watchId !== "control" && m.params.changedPaths.includes(after))).toEqual([]);

    const outside = tempDir("aas-fs-out-");
    expect((await fails(server, "fs/watch", { path: outside, watchId: "out" })).message).toContain(`${outside} is outside the allowed roots`);
    symlinkSync(outside, path.join(workspace, "link"));
    expect((await fails(server, "fs/watch", { path: path.join(workspace, "link"), watchId: "link" })).message).toContain("is outside the allowed roots");
    expect((await fails(server, "fs/watch", { path: path.join(workspace, "missing"), watchId: "m" })).message).toContain("does not exist");
    expect((await fails(server, "fs/watch", { path: "relative", watchId: "r" })).code).toBe(-32602);
  });

  it("saves feedback as a ZIP inside the allowed roots, with the thread's file and extra logs, and never over a file", async () => {
    const { server, workspace } = await serve();
    const thread = (await ok(server, "thread/start", {})).thread;
    write(path.join(workspace, "app.log"), "line 1\nline 2\n");
    const savePath = path.join(workspace, "feedback.zip");
    const saved = await ok(server, "feedback/save", {
      classification: "bug",
      savePath,
      reason: "The turn hung.",
      tags: { area: "turns" },
      threadId: thread.id,
      includeLogs: true,
      extraLogFiles: [path.join(workspace, "app.log")],
    });
    expect(saved).toEqual({ savedPath: savePath, threadId: thread.id, promptHash: null });
    const entries = readZip(readFileSync(savePath));
    expect([...entries.keys()]).toEqual(["feedback.json", `thread-${thread.id}.jsonl`, "logs/1-app.log"]);
    expect(JSON.parse(entries.get("feedback.json")!)).toMatchObject({ classification: "bug", reason: "The turn hung.", tags: { area: "turns" }, threadId: thread.id });
    expect(entries.get(`thread-${thread.id}.jsonl`)).toContain(thread.id);
    expect(entries.get("logs/1-app.log")).toBe("line 1\nline 2\n");
    expect((await fails(server, "feedback/save", { classification: "bug", savePath })).message).toContain("already exists");
    const outside = tempDir("aas-fb-out-");
    expect((await fails(server, "feedback/save", { classification: "bug", savePath: path.join(outside, "f.zip") })).message).toContain("is outside the allowed roots");
    expect((await fails(server, "feedback/save", { classification: "bug", savePath: path.join(workspace, "g.zip"), includeLogs: true, extraLogFiles: ["/etc/passwd"] })).message).toContain(
      "/etc/passwd is outside the allowed roots",
    );
  });

  it("puts a log's last 16 MiB in feedback without reading the rest, and refuses more logs than the read budget holds", async () => {
    const { server, workspace } = await serve();
    // Sparse, 5 GiB: read whole it was more than a Buffer holds; at 1 GiB, 1.1 GB of memory for a moment.
    const huge = path.join(workspace, "huge.log");
    write(huge, "");
    truncateSync(huge, 5 * 1024 ** 3);
    appendFileSync(huge, "the end\n");
    const savePath = path.join(workspace, "feedback.zip");
    await ok(server, "feedback/save", { classification: "bug", savePath, includeLogs: true, extraLogFiles: [huge] });
    const log = readZip(readFileSync(savePath)).get("logs/1-huge.log")!;
    expect(log.length).toBe(16 * 1024 * 1024);
    expect(log.endsWith("the end\n")).toBe(true);
    // Each log is cut to 16 MiB, but one request naming many must not hold them all at once.
    const many = await fails(server, "feedback/save", { classification: "bug", savePath: path.join(workspace, "many.zip"), includeLogs: true, extraLogFiles: Array(20).fill(huge) });
    expect(many).toEqual({
      code: -32600,
      message: "feedback/save: the logs to include come to more than the 128 MiB read at once (each is cut to its last 16 MiB); name fewer extraLogFiles",
    });
    expect(existsSync(path.join(workspace, "many.zip"))).toBe(false);
    expect((await ok(server, "fs/readFile", { path: huge.replace("huge.log", "feedback.zip") })).dataBase64.length).toBeGreaterThan(0);
  });

  it("refuses relative paths, escapes through .. or symlinks, missing files and oversized reads", async () => {
    const { server, workspace } = await serve();
    const outside = tempDir("aas-fs-outside-");
    write(path.join(outside, "secret.txt"), "secret");
    symlinkSync(outside, path.join(workspace, "out"));
    symlinkSync(path.join(outside, "new.txt"), path.join(workspace, "dangling"));

    const relative = await fails(server, "fs/readFile", { path: "notes.txt" });
    expect(relative.code).toBe(-32602);
    expect(relative.message).toContain("params.path: must be an absolute path");

    const dotdot = path.join(workspace, "..", path.basename(outside), "secret.txt");
    const escaped = await fails(server, "fs/readFile", { path: `${workspace}/../${path.basename(outside)}/secret.txt` });
    expect(escaped.code).toBe(-32600);
    expect(escaped.message).toContain(`${workspace}/../${path.basename(outside)}/secret.txt is outside the allowed roots`);
    expect(escaped.message).toContain(workspace);
    expect(escaped.data.allowedRoots).toEqual([workspace]);
    expect((await fails(server, "fs/getMetadata", { path: dotdot })).code).toBe(-32600);

    const viaLink = await fails(server, "fs/readFile", { path: path.join(workspace, "out", "secret.txt") });
    expect(viaLink.code).toBe(-32600);
    expect(viaLink.message).toContain(`(it resolves to ${path.join(outside, "secret.txt")})`);
    const writeViaLink = await fails(server, "fs/writeFile", { path: path.join(workspace, "out", "new.txt"), dataBase64: "aGk=" });
    expect(writeViaLink.code).toBe(-32600);
    const writeViaDangling = await fails(server, "fs/writeFile", { path: path.join(workspace, "dangling"), dataBase64: "aGk=" });
    expect(writeViaDangling.code).toBe(-32600);
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
    expect((await fails(server, "fs/readDirectory", { path: path.join(workspace, "out") })).code).toBe(-32600);
    expect((await fails(server, "fs/copy", { sourcePath: path.join(workspace, "out", "secret.txt"), destinationPath: path.join(workspace, "s") })).code).toBe(-32600);
    // Removing the link removes the link, not what it points to.
    await ok(server, "fs/remove", { path: path.join(workspace, "out") });
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("secret");

    const missing = await fails(server, "fs/readFile", { path: path.join(workspace, "nope.txt") });
    expect(missing).toMatchObject({ code: -32603, message: `fs/readFile failed: ${path.join(workspace, "nope.txt")} does not exist` });
    const noDir = await fails(server, "fs/writeFile", { path: path.join(workspace, "no", "dir.txt"), dataBase64: "" });
    expect(noDir.message).toContain("its directory does not exist");
    const badBase64 = await fails(server, "fs/writeFile", { path: path.join(workspace, "b.txt"), dataBase64: "not base64!" });
    expect(badBase64.code).toBe(-32602);

    execFileSync("mkfifo", [path.join(workspace, "pipe")]);
    const fifoRead = await fails(server, "fs/readFile", { path: path.join(workspace, "pipe") });
    expect(fifoRead).toMatchObject({ code: -32600, message: `fs/readFile: ${path.join(workspace, "pipe")} is not a regular file (it is a FIFO)` });
    expect((await fails(server, "fs/writeFile", { path: path.join(workspace, "pipe"), dataBase64: "aGk=" })).code).toBe(-32600);

    const huge = path.join(workspace, "huge.bin");
    writeFileSync(huge, "");
    truncateSync(huge, 64 * 1024 * 1024 + 1); // sparse: no 64 MiB written
    const tooBig = await fails(server, "fs/readFile", { path: huge });
    expect(tooBig.code).toBe(-32600);
    expect(tooBig.message).toContain("larger than 64 MiB are not read");

    // A NUL cannot be in a path: refused as bad params, not an I/O failure naming Node's arguments.
    const nul = await fails(server, "fs/readFile", { path: `${workspace}/a\u0000b` });
    expect(nul.code).toBe(-32602);
    expect(nul.message).toContain("params.path: must not contain a NUL character");
    // A socket is no regular file, as a FIFO or a device is not.
    const socketPath = path.join(workspace, "sock");
    const listener = net.createServer().listen(socketPath);
    await once(listener, "listening");
    try {
      for (const [method, params] of [["fs/readFile", { path: socketPath }], ["fs/copy", { sourcePath: socketPath, destinationPath: path.join(workspace, "copied") }]] as const) {
        expect(await fails(server, method, params)).toEqual({ code: -32600, message: `${method}: ${socketPath} is not a regular file (it is a socket)`, data: { path: socketPath } });
      }
    } finally {
      listener.close();
    }
  });

  it("allows configured writable roots and trusted projects outside the server's cwd, not a thread's cwd", async () => {
    const project = tempDir("aas-fs-project-");
    const untrusted = tempDir("aas-fs-untrusted-");
    const extra = tempDir("aas-fs-extra-");
    write(path.join(project, "readme.md"), "project");
    write(path.join(untrusted, "readme.md"), "untrusted");
    write(path.join(extra, "notes.md"), "extra");
    const { server, workspace } = await serve(
      `[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(extra)}]\n` +
        `[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n` +
        `[projects.${JSON.stringify(untrusted)}]\ntrust_level = "untrusted"\n`,
    );

    expect(await ok(server, "fs/readFile", { path: path.join(extra, "notes.md") })).toEqual({ dataBase64: Buffer.from("extra").toString("base64") });
    expect(await ok(server, "fs/readFile", { path: path.join(project, "readme.md") })).toEqual({ dataBase64: Buffer.from("project").toString("base64") });
    const found = await ok(server, "fuzzyFileSearch", { query: "rdm", roots: [project] });
    expect(found.files.map((file: any) => file.path)).toEqual(["readme.md"]);

    // A thread's cwd is the client's to choose, so it does not widen what file requests reach.
    await ok(server, "thread/start", { cwd: untrusted });
    const refused = await fails(server, "fs/readFile", { path: path.join(untrusted, "readme.md") });
    expect(refused.code).toBe(-32600);
    expect(refused.message).toContain("a thread's cwd does not add to them");
    expect(refused.data.allowedRoots).toEqual([workspace, extra, project]);
    expect((await fails(server, "fuzzyFileSearch", { query: "rdm", roots: [untrusted] })).code).toBe(-32600);
  });

  it("refuses /etc/passwd after a thread started with cwd /", async () => {
    const { server } = await serve();
    await ok(server, "thread/start", { cwd: "/" });
    const refused = await fails(server, "fs/readFile", { path: "/etc/passwd" });
    expect(refused.code).toBe(-32600);
    expect(refused.message).toContain("/etc/passwd is outside the allowed roots");
    expect((await fails(server, "fs/writeFile", { path: "/etc/aas-should-not-exist", dataBase64: "aGk=" })).code).toBe(-32600);
    expect(existsSync("/etc/aas-should-not-exist")).toBe(false);
  });
});

describe("fuzzyFileSearch", () => {
  it("finds files by subsequence, best first, without .git and node_modules", async () => {
    const { server, workspace } = await serve();
    for (const file of ["src/main.ts", "src/domain.ts", "make/a/in.txt", "docs/notes.md", ".git/main", "node_modules/main/index.js"]) {
      write(path.join(workspace, file));
    }
    const { files } = await ok(server, "fuzzyFileSearch", { query: "main", roots: [workspace], cancellationToken: null });
    expect(files.map((file: any) => file.path)).toEqual(["src/main.ts", "make/a/in.txt", "src/domain.ts"]);
    expect(files[0]).toMatchObject({ root: workspace, file_name: "main.ts", match_type: "file", indices: [4, 5, 6, 7] });
    expect(files[0].score).toBeGreaterThan(files[1].score);
    expect(files[1].score).toBeGreaterThan(files[2].score);

    const dirs = await ok(server, "fuzzyFileSearch", { query: "src", roots: [workspace] });
    expect(dirs.files[0]).toMatchObject({ path: "src", match_type: "directory", file_name: "src" });
    expect((await ok(server, "fuzzyFileSearch", { query: "", roots: [workspace] })).files).toEqual([]);
    expect((await ok(server, "fuzzyFileSearch", { query: "zzzz", roots: [workspace] })).files).toEqual([]);
    // Smart case: an upper-case letter makes the query case-sensitive.
    expect((await ok(server, "fuzzyFileSearch", { query: "MAIN", roots: [workspace] })).files).toEqual([]);

    const outside = await fails(server, "fuzzyFileSearch", { query: "main", roots: [os.tmpdir()] });
    expect(outside.code).toBe(-32600);
    expect(outside.message).toContain(`${os.tmpdir()} is outside the allowed roots`);
  });

  it("answers a search replaced by a newer one with the same token with no files", async () => {
    const { server, workspace } = await serve();
    // Enough directories that the first walk is still reading when the second request arrives.
    for (let i = 0; i < 200; i++) write(path.join(workspace, `dir${i}`, `file${i}.txt`));
    const first = { id: "search-1", method: "fuzzyFileSearch", params: { query: "file", roots: [workspace], cancellationToken: "t" } };
    const second = { ...first, id: "search-2", params: { ...first.params, query: "file19" } };
    server.sendRaw(`${JSON.stringify(first)}\n${JSON.stringify(second)}\n`);
    const [cancelled, latest] = await Promise.all([
      server.waitFor((m) => m.id === "search-1", "first search"),
      server.waitFor((m) => m.id === "search-2", "second search"),
    ]);
    expect(cancelled.result).toEqual({ files: [] });
    expect(latest.result.files[0]).toMatchObject({ path: "dir19/file19.txt" });
  });
});
