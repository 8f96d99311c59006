/**
 * Codex's skills: folders with a `SKILL.md` whose front matter names the skill and says when to
 * use it. They are found in the home's `skills/` (scope `user`), in the extra roots a client set
 * (`user`), and in `.agents/skills/` and `.codex/skills/` of each directory from the repository
 * root down to the cwd (`repo`). The model is offered each enabled skill's name, description and
 * path (it reads SKILL.md itself when it decides to use one), within about 8,000 characters.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { readRegularFile } from "../workspace/regularFiles.js";
import { directoriesFromRoot } from "../workspace/repository.js";

/** A skill as `skills/list` shows it. */
export interface Skill {
  readonly name: string;
  readonly description: string;
  readonly path: string;
  readonly scope: "user" | "repo";
  readonly enabled: boolean;
}

/** A SKILL.md that could not be read as a skill. */
export interface SkillError {
  readonly path: string;
  readonly message: string;
}

/** Where to look, and which skills are switched off (by SKILL.md path or by name). */
export interface SkillSources {
  readonly home: string;
  readonly extraRoots: readonly string[];
  readonly disabled: readonly { readonly path?: string | null; readonly name?: string | null }[];
  /**
   * Reads a repository's SKILL.md (the first `maxBytes`): for a sandboxed turn, only what its
   * processes could read (the model writes the repository, and may have made SKILL.md a symlink
   * to the server's home or to another user's file). Default: wherever it points.
   */
  readonly readRepoFile?: (file: string, maxBytes: number) => Promise<Buffer>;
}

/** The skills list offered to the model stops at about this many characters. */
const OFFER_BUDGET_CHARS = 8_000;
// A SKILL.md larger than this is not a skill description: it is not read.
const MAX_SKILL_BYTES = 1024 * 1024;

/** The skills visible from `cwd`, sorted by name, and the SKILL.md files that failed. */
export async function discoverSkills(cwd: string, sources: SkillSources): Promise<{ skills: Skill[]; errors: SkillError[] }> {
  const roots: Array<{ dir: string; scope: Skill["scope"] }> = [
    { dir: path.join(sources.home, "skills"), scope: "user" },
    ...sources.extraRoots.map((dir) => ({ dir, scope: "user" as const })),
  ];
  for (const dir of await directoriesFromRoot(path.resolve(cwd))) {
    roots.push({ dir: path.join(dir, ".agents", "skills"), scope: "repo" }, { dir: path.join(dir, ".codex", "skills"), scope: "repo" });
  }
  const skills: Skill[] = [];
  const errors: SkillError[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    const entries = await readdir(root.dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isDirectory()) continue;
      const file = path.join(root.dir, entry.name, "SKILL.md");
      if (seen.has(file)) continue;
      seen.add(file);
      // A FIFO or device named SKILL.md in a repository is passed over, never waited on.
      const read = root.scope === "repo" && sources.readRepoFile ? sources.readRepoFile(file, MAX_SKILL_BYTES) : readRegularFile(file, MAX_SKILL_BYTES);
      const text = await read
        .then((bytes) => bytes.toString("utf8"))
        .catch(() => null);
      if (text === null) continue;
      const meta = frontMatter(text);
      if (!meta.name || !meta.description) {
        errors.push({ path: file, message: "SKILL.md needs front matter with a name and a description" });
        continue;
      }
      const enabled = !sources.disabled.some((off) => off.path === file || (off.name && off.name === meta.name));
      skills.push({ name: meta.name, description: meta.description, path: file, scope: root.scope, enabled });
    }
  }
  return { skills: skills.sort((a, b) => a.name.localeCompare(b.name)), errors };
}

/** The developer message that tells the model which skills it has, or null when there are none. */
export function skillsMessage(skills: readonly Skill[]): string | null {
  const enabled = skills.filter((skill) => skill.enabled);
  if (enabled.length === 0) return null;
  const lines: string[] = [];
  let used = 0;
  for (const skill of enabled) {
    const line = `- ${skill.name}: ${skill.description} (file: ${skill.path})`;
    if (used + line.length > OFFER_BUDGET_CHARS) break;
    used += line.length;
    lines.push(line);
  }
  return [
    "## Skills",
    "These skills are available. Each is a folder with a SKILL.md of instructions (and maybe scripts and references).",
    "When the user names a skill ($name), or the task plainly matches a skill's description, read its SKILL.md first and follow it.",
    ...lines,
  ].join("\n");
}

/** `name:` and `description:` of a `---` front matter block (single-line values, quotes removed). */
function frontMatter(text: string): { name?: string; description?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return {};
  const fields: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const field = /^([A-Za-z_]+):\s*(.*)$/.exec(line);
    if (field) fields[field[1]!] = field[2]!.trim().replace(/^(["'])(.*)\1$/, "$2");
  }
  return { name: fields.name || undefined, description: fields.description || undefined };
}
