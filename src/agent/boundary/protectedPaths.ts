/**
 * The paths inside the writable roots that stay read-only in the sandbox, and that a patch may
 * write only with a yes: whatever makes a program outside the sandbox run what the model wrote.
 * - `.git`, `.agents` and `.codex` at the top of every writable root, whether they exist or not
 *   (a planted `.git` makes the user's next `git` run its hooks and `core.fsmonitor`).
 * - For the repository a root is in: the target of a `.git` file (its `gitdir`, and that
 *   directory's `commondir`), as worktrees and submodules have.
 * - What git's configuration (system, global, the repository's, and every file they include)
 *   names: those configuration files themselves (existing or not), `core.hooksPath`, and every
 *   path in a setting whose value git runs as a program (`core.fsmonitor`, filters, textconv,
 *   `diff.external`, `core.sshCommand`, `!` aliases…), plus the `.git` of each submodule `.gitmodules` lists.
 * - The files a login shell runs from the home (`.bash_profile`, `.profile`, `.bashrc`…): the
 *   server runs the profile itself, and so does the user's every terminal.
 * Only the paths inside a writable root matter (the rest of the filesystem is read-only already).
 */
import { lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { isInside } from "../../workspace/roots.js";
import { readGitConfig, resolveConfigPath, type ConfigEntry } from "./gitConfig.js";

/** The names protected at the top of every writable root. */
export const PROTECTED_NAMES = [".git", ".agents", ".codex"] as const;

/**
 * Settings whose value git runs as a command (a shell command line, or a program's path), as
 * `section.name` or `section.*.name` (any subsection). Every word of such a value that is a path
 * is protected: the program, or the script a command line hands to an interpreter.
 */
const PROGRAM_KEYS = [
  "core.fsmonitor", "core.sshcommand", "core.editor", "core.pager", "core.askpass", "core.gitproxy",
  "sequence.editor", "diff.external", "diff.*.command", "diff.*.textconv", "merge.*.driver",
  "filter.*.clean", "filter.*.smudge", "filter.*.process", "credential.helper", "credential.*.helper",
  "gpg.program", "gpg.*.program", "pager.*", "web.browser", "browser.*.cmd", "browser.*.path",
  "difftool.*.cmd", "difftool.*.path", "mergetool.*.cmd", "mergetool.*.path", "remote.*.uploadpack",
  "remote.*.receivepack", "uploadpack.packobjectshook", "sendemail.smtpserver", "sendemail.sendmailcmd",
  "init.templatedir",
];
const PROGRAM_KEY = new RegExp(`^(?:${PROGRAM_KEYS.map((key) => key.replace(/\./g, "\\.").replace("*", ".+")).join("|")})$`);

/**
 * The protected paths for `roots` (absolute, resolved), with `env` giving git's global settings
 * (HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL/SYSTEM/NOSYSTEM). Each is absolute and inside a root.
 */
export function protectedPaths(roots: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const found = new Set<string>(startupFiles(env));
  const globals = globalConfig(env);
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) found.add(path.join(root, name));
    for (const entry of repositoryPaths(root, env, globals)) found.add(entry);
  }
  return [...found].filter((entry) => roots.some((root) => isInside(entry, root) && entry !== root));
}

/** The files bash reads when it starts, in the home and from BASH_ENV/ENV, whether they exist yet or not. */
function startupFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME;
  const files = home ? [".bash_profile", ".bash_login", ".profile", ".bashrc", ".bash_logout"].map((name) => path.join(home, name)) : [];
  for (const file of [env.BASH_ENV, env.ENV]) if (file && path.isAbsolute(file)) files.push(file);
  return files;
}

/** The system and global config entries (read once per call; their files change rarely and are cached). */
function globalConfig(env: NodeJS.ProcessEnv): { entries: ConfigEntry[]; files: string[] } {
  const home = env.HOME;
  const files: string[] = [];
  if (!env.GIT_CONFIG_NOSYSTEM) files.push(env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig");
  if (env.GIT_CONFIG_GLOBAL) files.push(env.GIT_CONFIG_GLOBAL);
  else {
    const xdg = env.XDG_CONFIG_HOME ?? (home ? path.join(home, ".config") : null);
    if (xdg) files.push(path.join(xdg, "git", "config"));
    if (home) files.push(path.join(home, ".gitconfig"));
  }
  const entries: ConfigEntry[] = [];
  const read: string[] = [];
  for (const file of files) {
    const config = readGitConfig(file, home);
    entries.push(...config.entries);
    read.push(...config.files);
  }
  return { entries, files: read };
}

/** What the repository `root` is in (found as git finds it, upwards) makes protected, global settings included. */
function repositoryPaths(root: string, env: NodeJS.ProcessEnv, globals: { entries: ConfigEntry[]; files: string[] }): string[] {
  const paths = [...globals.files];
  const repository = enclosingRepository(root);
  const worktree = repository?.worktree ?? root;
  const entries = [...globals.entries];
  if (repository) {
    paths.push(repository.dotGit, repository.gitDir, repository.commonDir);
    for (const file of [path.join(repository.commonDir, "config"), path.join(repository.gitDir, "config.worktree")]) {
      const config = readGitConfig(file, env.HOME);
      entries.push(...config.entries);
      paths.push(...config.files);
    }
    const modules = readGitConfig(path.join(worktree, ".gitmodules"), env.HOME);
    for (const entry of modules.entries) {
      if (/^submodule\..+\.path$/.test(entry.key) && entry.value !== "") paths.push(path.join(path.resolve(worktree, entry.value), ".git"));
    }
  }
  for (const entry of entries) {
    if (entry.key === "core.hookspath") {
      const hooks = resolveConfigPath(entry.value, worktree, env.HOME);
      if (hooks) paths.push(hooks);
    } else if (PROGRAM_KEY.test(entry.key) || (entry.key.startsWith("alias.") && entry.value.startsWith("!"))) {
      // A `!` alias is a shell command git runs like any of these.
      for (const word of pathWords(entry.value.replace(/^!/, ""))) {
        for (const base of new Set([worktree, root])) {
          const resolved = resolveConfigPath(word, base, env.HOME);
          if (resolved) paths.push(resolved);
        }
      }
    }
  }
  return paths;
}

/** The words of a command line that name a path (hold a `/`, or start with `~`), quotes removed. */
function pathWords(commandLine: string): string[] {
  return (commandLine.match(/"[^"]*"|'[^']*'|[^\s"';&|()<>]+/g) ?? [])
    .map((word) => word.replace(/^["']|["']$/g, ""))
    .filter((word) => word.includes("/") || word.startsWith("~"));
}

/** A repository as git finds it from a directory: where its `.git` is, what that points to, and its common directory. */
interface Repository {
  readonly worktree: string;
  /** `<worktree>/.git`: a directory, or a file naming the git directory. */
  readonly dotGit: string;
  readonly gitDir: string;
  readonly commonDir: string;
}

/** The repository `dir` is in (the nearest `.git` upwards), or null. */
function enclosingRepository(dir: string): Repository | null {
  for (let current = dir; ; current = path.dirname(current)) {
    const dotGit = path.join(current, ".git");
    const stats = lstatOrNull(dotGit);
    if (stats?.isDirectory()) return { worktree: current, dotGit, gitDir: dotGit, commonDir: dotGit };
    if (stats?.isFile()) {
      const gitDir = gitFileTarget(dotGit);
      if (gitDir) return { worktree: current, dotGit, gitDir, commonDir: commonDirOf(gitDir) };
    }
    if (path.dirname(current) === current) return null;
  }
}

/** The directory a `.git` file names (`gitdir: PATH`, relative to the file's directory). */
function gitFileTarget(file: string): string | null {
  const text = readSmall(file);
  const match = text === null ? null : /^gitdir: *(.+?)\s*$/m.exec(text);
  return match ? path.resolve(path.dirname(file), match[1]!) : null;
}

/** A git directory's common directory (`commondir`, as linked worktrees have), else the git directory itself. */
function commonDirOf(gitDir: string): string {
  const text = readSmall(path.join(gitDir, "commondir"))?.trim();
  return text ? path.resolve(gitDir, text) : gitDir;
}

function lstatOrNull(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

/** A small regular file's text (a `.git` file, `commondir`), or null. */
function readSmall(file: string): string | null {
  const stats = lstatOrNull(file);
  if (!stats?.isFile() || stats.size > 64 * 1024) return null;
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
