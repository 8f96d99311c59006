/**
 * Thread sections (`threadSection/*`, `thread/section/move`): user-visible groups of threads, kept
 * apart from the threads themselves in `thread_sections.json` in the home, with each section's
 * threads in order and when each entered it. Every change rewrites the file whole (a temp file
 * renamed into place), one change at a time.
 */
import { randomUUID } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { ThreadSection } from "../protocol/thread.js";
import { invalidRequest } from "../protocol/errors.js";

const Member = z.object({ threadId: z.string(), enteredAt: z.number().int() });
const SectionsFile = z.object({
  sections: z.array(ThreadSection),
  members: z.record(z.string(), z.array(Member)),
});
type SectionsFile = z.infer<typeof SectionsFile>;
type Section = z.infer<typeof ThreadSection>;
type Appearance = Section["appearance"];

/** The sections, their threads, and the file they live in. */
export class SectionStore {
  private state: SectionsFile = { sections: [], members: {} };
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly home: string,
    private readonly newId: () => string,
  ) {}

  private get file(): string {
    return path.join(this.home, "thread_sections.json");
  }

  /** Reads the file (missing or unreadable: no sections). */
  async load(): Promise<void> {
    try {
      const parsed = SectionsFile.safeParse(JSON.parse(await readFile(this.file, "utf8")));
      if (parsed.success) this.state = parsed.data;
    } catch {
      // No sections yet.
    }
  }

  /** The sections, in the order they were created. */
  list(): readonly Section[] {
    return this.state.sections;
  }

  /** The section a thread is in, and since when (Unix seconds); null when in none. */
  placement(threadId: string): { section: Section; enteredAt: number } | null {
    for (const section of this.state.sections) {
      const member = this.state.members[section.id]?.find((entry) => entry.threadId === threadId);
      if (member) return { section, enteredAt: member.enteredAt };
    }
    return null;
  }

  /** Creates a section. */
  create(name: string, appearance: Appearance): Promise<Section> {
    return this.change(() => {
      const section: Section = { id: this.newId(), name, appearance: appearance ?? null };
      this.state.sections.push(section);
      this.state.members[section.id] = [];
      return section;
    });
  }

  /** Renames a section; `appearance` undefined keeps it, null clears it. */
  update(sectionId: string, name: string, appearance: Appearance | undefined): Promise<Section> {
    return this.change(() => {
      const section = this.require(sectionId);
      section.name = name;
      if (appearance !== undefined) section.appearance = appearance;
      return section;
    });
  }

  /** Deletes a section; its threads are then in none. */
  delete(sectionId: string): Promise<void> {
    return this.change(() => {
      this.require(sectionId);
      this.state.sections = this.state.sections.filter((section) => section.id !== sectionId);
      delete this.state.members[sectionId];
    });
  }

  /** Moves a thread into (before `beforeThreadId`, else last), within, or out of (`sectionId` null) a section. */
  move(threadId: string, sectionId: string | null, beforeThreadId: string | null, nowSeconds: number): Promise<void> {
    return this.change(() => {
      if (sectionId !== null) this.require(sectionId);
      const previous = this.placement(threadId);
      for (const members of Object.values(this.state.members)) {
        const index = members.findIndex((entry) => entry.threadId === threadId);
        if (index !== -1) members.splice(index, 1);
      }
      if (sectionId === null) return;
      const members = this.state.members[sectionId]!;
      const enteredAt = previous?.section.id === sectionId ? previous.enteredAt : nowSeconds;
      const before = beforeThreadId === null ? -1 : members.findIndex((entry) => entry.threadId === beforeThreadId);
      if (beforeThreadId !== null && before === -1) throw invalidRequest(`thread ${beforeThreadId} is not in section ${sectionId}`);
      members.splice(before === -1 ? members.length : before, 0, { threadId, enteredAt });
    });
  }

  /** Forgets a deleted thread. */
  forget(threadId: string): Promise<void> {
    if (!this.placement(threadId)) return Promise.resolve();
    return this.move(threadId, null, null, 0);
  }

  private require(sectionId: string): Section {
    const section = this.state.sections.find((entry) => entry.id === sectionId);
    if (!section) throw invalidRequest(`no thread section ${sectionId}`);
    return section;
  }

  /** Applies `edit` to a copy of the state, writes it, then keeps it; a failed edit or write changes nothing. */
  private change<T>(edit: () => T): Promise<T> {
    const run = this.queue.then(async () => {
      const before = this.state;
      this.state = structuredClone(before);
      try {
        const result = edit();
        const temp = path.join(this.home, `.thread_sections.${randomUUID()}.tmp`);
        await writeFile(temp, JSON.stringify(this.state, null, 2) + "\n");
        await rename(temp, this.file);
        return result;
      } catch (error) {
        this.state = before;
        throw error;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
