import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfinedFs, ConfinedFsError } from "../../src/workspace/confinedFs.js";

const dirs: string[] = [];
/** A fresh temp directory, by its real path. */
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The error a promise rejects with (it must reject). */
async function failure(promise: Promise<unknown>): Promise<ConfinedFsError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, "should have failed").toBeInstanceOf(ConfinedFsError);
  return error as ConfinedFsError;
}

/** Fails the test instead of hanging when `promise` (an operation that must not block) takes too long. */
function bounded<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`blocked for ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A root with a file, and a directory outside it with a secret. */
function layout(): { root: string; outside: string } {
  const root = tempDir("aas-cfs-root-");
  const outside = tempDir("aas-cfs-out-");
  writeFileSync(path.join(root, "inside.txt"), "inside");
  writeFileSync(path.join(outside, "secret.txt"), "secret");
  return { root, outside };
}

describe("ConfinedFs", () => {
  it("reads, writes, lists and inspects inside the roots, following symlinks that stay inside", async () => {
    const { root } = layout();
    mkdirSync(path.join(root, "sub"));
    symlinkSync("sub", path.join(root, "subLink"));
    symlinkSync("../inside.txt", path.join(root, "sub", "up.txt"));
    const files = await ConfinedFs.create({ roots: [root], protectedPaths: [] });

    expect((await files.readFile(path.join(root, "sub", "up.txt"))).toString()).toBe("inside");
    await files.writeFile(path.join(root, "subLink", "new.txt"), "new");
    expect(readFileSync(path.join(root, "sub", "new.txt"), "utf8")).toBe("new");
    // A dangling symlink inside the roots is written through: the file appears where it points.
    symlinkSync("sub/made.txt", path.join(root, "dangling"));
    await files.writeFile(path.join(root, "dangling"), "made");
    expect(readFileSync(path.join(root, "sub", "made.txt"), "utf8")).toBe("made");
    expect(lstatSync(path.join(root, "dangling")).isSymbolicLink()).toBe(true);

    expect(await files.readDirectory(root)).toEqual([
      { name: "dangling", isDirectory: false, isFile: true },
      { name: "inside.txt", isDirectory: false, isFile: true },
      { name: "sub", isDirectory: true, isFile: false },
      { name: "subLink", isDirectory: true, isFile: false },
    ]);
    const meta = await files.getMetadata(path.join(root, "subLink"));
    expect(meta.entry.isSymbolicLink()).toBe(true);
    expect(meta.target.isDirectory()).toBe(true);
    // `..` in a request is lexical, as path.resolve reads it.
    expect((await files.readFile(`${root}/sub/../inside.txt`)).toString()).toBe("inside");

    await files.mkdir(path.join(root, "a", "b", "c"), { recursive: true });
    await files.mkdir(path.join(root, "a", "b", "c"), { recursive: true });
    expect((await failure(files.mkdir(path.join(root, "a", "b"), { recursive: false }))).code).toBe("EEXIST");
    expect((await failure(files.mkdir(path.join(root, "x", "y"), { recursive: false }))).code).toBe("ENOENT");
    expect(lstatSync(path.join(root, "a", "b", "c")).isDirectory()).toBe(true);

    await files.rename(path.join(root, "inside.txt"), path.join(root, "a", "moved.txt"));
    expect(readFileSync(path.join(root, "a", "moved.txt"), "utf8")).toBe("inside");
    const missing = await failure(files.readFile(path.join(root, "inside.txt")));
    expect(missing.code).toBe("ENOENT");
    expect(missing.message).toBe(`ENOENT: no such file or directory, open ${path.join(root, "inside.txt")}`);
    const tooBig = await failure(files.readFile(path.join(root, "a", "moved.txt"), { maxBytes: 3 }));
    expect(tooBig).toMatchObject({ code: "ETOOLARGE", size: 6, limit: 3 });
  });

  it("refuses what leaves the roots through .., symlinks or dangling symlinks, naming path, location and roots", async () => {
    const { root, outside } = layout();
    symlinkSync(outside, path.join(root, "out"));
    symlinkSync(path.join(outside, "created.txt"), path.join(root, "danglingOut"));
    symlinkSync(path.join(outside, "newdir"), path.join(root, "danglingDir"));
    const files = await ConfinedFs.create({ roots: [root], protectedPaths: [] });

    const read = await failure(files.readFile(path.join(root, "out", "secret.txt")));
    expect(read).toMatchObject({ code: "EOUTSIDE", path: path.join(root, "out", "secret.txt"), location: path.join(outside, "secret.txt"), roots: [root] });
    expect(read.message).toBe(`${path.join(root, "out", "secret.txt")} is outside the roots (it resolves to ${path.join(outside, "secret.txt")}); the roots are: ${root}`);
    expect((await failure(files.readFile(`${root}/../${path.basename(outside)}/secret.txt`))).code).toBe("EOUTSIDE");
    expect((await failure(files.writeFile(path.join(root, "out", "new.txt"), "x"))).code).toBe("EOUTSIDE");
    const created = await failure(files.writeFile(path.join(root, "danglingOut"), "x"));
    expect(created).toMatchObject({ code: "EOUTSIDE", location: path.join(outside, "created.txt") });
    expect((await failure(files.mkdir(path.join(root, "danglingDir", "deeper"), { recursive: true }))).code).toBe("EOUTSIDE");
    expect((await failure(files.readDirectory(path.join(root, "out")))).code).toBe("EOUTSIDE");
    expect((await failure(files.getMetadata(path.join(root, "out")))).code).toBe("EOUTSIDE");
    expect((await failure(files.copy(path.join(root, "out", "secret.txt"), path.join(root, "copy.txt"), { recursive: false }))).code).toBe("EOUTSIDE");
    expect((await failure(files.copy(path.join(root, "inside.txt"), path.join(root, "out", "copy.txt"), { recursive: false }))).code).toBe("EOUTSIDE");
    expect((await failure(files.rename(path.join(root, "inside.txt"), path.join(root, "out", "moved.txt")))).code).toBe("EOUTSIDE");
    // A path that does not exist outside is outside, not missing.
    expect((await failure(files.readFile("/nonexistent-aas/x.txt"))).code).toBe("EOUTSIDE");
    // The link itself is inside: listing shows it with no flags, removing removes the link only.
    expect((await files.readDirectory(root)).find((entry) => entry.name === "out")).toEqual({ name: "out", isDirectory: false, isFile: false });
    await files.remove(path.join(root, "out"), { recursive: true, force: false });
    expect(existsSync(path.join(root, "out"))).toBe(false);
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("keeps protected paths read-only, also through symlinks and for trees that contain them", async () => {
    const { root } = layout();
    mkdirSync(path.join(root, ".git"));
    writeFileSync(path.join(root, ".git", "config"), "[core]");
    symlinkSync(".git", path.join(root, "gitLink"));
    const files = await ConfinedFs.create({ roots: [root], protectedPaths: [path.join(root, ".git")] });

    expect((await files.readFile(path.join(root, ".git", "config"))).toString()).toBe("[core]");
    const write = await failure(files.writeFile(path.join(root, ".git", "config"), "x"));
    expect(write).toMatchObject({ code: "EPROTECTED", protectedPath: path.join(root, ".git") });
    expect((await failure(files.writeFile(path.join(root, "gitLink", "hooks"), "x"))).code).toBe("EPROTECTED");
    expect((await failure(files.mkdir(path.join(root, ".git", "hooks"), { recursive: true }))).code).toBe("EPROTECTED");
    expect((await failure(files.remove(path.join(root, ".git", "config"), { recursive: false, force: false }))).code).toBe("EPROTECTED");
    expect((await failure(files.remove(root, { recursive: true, force: false }))).code).toBe("EPROTECTED");
    expect((await failure(files.rename(path.join(root, ".git"), path.join(root, "git2")))).code).toBe("EPROTECTED");
    expect(readFileSync(path.join(root, ".git", "config"), "utf8")).toBe("[core]");
    expect(existsSync(path.join(root, "inside.txt"))).toBe(true);
  });

  it("refuses FIFOs and devices without blocking", async () => {
    const { root } = layout();
    const fifo = path.join(root, "pipe");
    execFileSync("mkfifo", [fifo]);
    const files = await ConfinedFs.create({ roots: [root], protectedPaths: [] });
    const read = await bounded(failure(files.readFile(fifo)));
    expect(read.code).toBe("ENOTREGULAR");
    expect(read.message).toBe(`${fifo} is not a regular file (it is a FIFO)`);
    expect((await bounded(failure(files.writeFile(fifo, "x")))).code).toBe("ENOTREGULAR");
    expect((await bounded(failure(files.copy(fifo, path.join(root, "copy"), { recursive: false })))).code).toBe("ENOTREGULAR");
    mkdirSync(path.join(root, "tree"));
    execFileSync("mkfifo", [path.join(root, "tree", "pipe")]);
    expect((await bounded(failure(files.copy(path.join(root, "tree"), path.join(root, "tree2"), { recursive: true })))).code).toBe("ENOTREGULAR");

    const anywhere = await ConfinedFs.create(null);
    expect((await bounded(failure(anywhere.readFile("/dev/zero")))).code).toBe("ENOTREGULAR");
    expect((await bounded(failure(anywhere.writeFile("/dev/null", "x")))).code).toBe("ENOTREGULAR");
    expect((await bounded(failure(anywhere.readFile(fifo)))).code).toBe("ENOTREGULAR");
    // Unconfined reads reach anything else.
    expect((await anywhere.readFile(path.join(root, "inside.txt"))).toString()).toBe("inside");
  });

  it("removes a tree without following the symlinks in it", async () => {
    const { root, outside } = layout();
    mkdirSync(path.join(root, "tree", "inner"), { recursive: true });
    writeFileSync(path.join(root, "tree", "inner", "f.txt"), "f");
    symlinkSync(outside, path.join(root, "tree", "inner", "escape"));
    symlinkSync(path.join(outside, "secret.txt"), path.join(root, "tree", "secretLink"));
    const files = await ConfinedFs.create({ roots: [root], protectedPaths: [] });
    const notEmpty = await failure(files.remove(path.join(root, "tree"), { recursive: false, force: false }));
    expect(notEmpty.code).toBe("ENOTEMPTY");
    await files.remove(path.join(root, "tree"), { recursive: true, force: false });
    expect(existsSync(path.join(root, "tree"))).toBe(false);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("secret");
    await files.remove(path.join(root, "tree"), { recursive: true, force: true });
    await files.remove(path.join(root, "tree", "under", "it"), { recursive: true, force: true });
    expect((await failure(files.remove(path.join(root, "tree"), { recursive: true, force: false }))).code).toBe("ENOENT");
  });

  it("copies files and trees, symlinks as symlinks, and not into themselves", async () => {
    const { root, outside } = layout();
    mkdirSync(path.join(root, "src", "deep"), { recursive: true });
    writeFileSync(path.join(root, "src", "deep", "a.txt"), "a");
    symlinkSync(outside, path.join(root, "src", "out"));
    const files = await ConfinedFs.create({ roots: [root], protectedPaths: [] });
    await files.copy(path.join(root, "inside.txt"), path.join(root, "copy.txt"), { recursive: false });
    expect(readFileSync(path.join(root, "copy.txt"), "utf8")).toBe("inside");
    // Onto itself (here through a symlink) leaves the file as it was, not truncated.
    symlinkSync("inside.txt", path.join(root, "same.txt"));
    await files.copy(path.join(root, "inside.txt"), path.join(root, "same.txt"), { recursive: false });
    expect(readFileSync(path.join(root, "inside.txt"), "utf8")).toBe("inside");
    expect((await failure(files.copy(path.join(root, "src"), path.join(root, "dst"), { recursive: false }))).code).toBe("EISDIR");
    await files.copy(path.join(root, "src"), path.join(root, "dst"), { recursive: true });
    expect(readFileSync(path.join(root, "dst", "deep", "a.txt"), "utf8")).toBe("a");
    expect(readlinkSync(path.join(root, "dst", "out"))).toBe(outside);
    expect((await failure(files.copy(path.join(root, "src"), path.join(root, "src", "deep", "again"), { recursive: true }))).code).toBe("EINVAL");
  });
});
