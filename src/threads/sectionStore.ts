/**
 * Thread sections (`threadSection/*`, `thread/section/move`): user-visible groups of threads, kept
 * apart from the threads themselves in `thread_sections.json` in the home, with each section's
 * threads in order and when each entered it.
 */
import path from "node:path";
import * as z from "zod";
import { lazySchema } from "../protocol/lazySchema.js";
import { ThreadSection } from "../protocol/thread.js";
import { invalidRequest } from "../protocol/errors.js";
import { JsonStateFile } from "../runtime/jsonStateFile.js";

const Member = lazySchema(() => z.object({ threadId: z.string(), enteredAt: z.number().int() }));
const SectionsFile = lazySchema(() => z.object({
  sections: z.array(ThreadSection),
  members: z.record(z.string(), z.array(Member)),
}));
type SectionsFile = z.infer<typeof SectionsFile>;
type Section = z.infer<typeof ThreadSection>;
type Appearance = Section["appearance"];

/** The sections, their threads, and the file they live in. */
export class SectionStore {
  private readonly file: JsonStateFile<SectionsFile>;

  constructor(
    home: string,
    private readonly newId: () => string,
  ) {
    this.file = new JsonStateFile(path.join(home, "thread_sections.json"), SectionsFile, { sections: [], members: {} });
  }

  private get state(): SectionsFile {
    return this.file.state;
  }

  /** Reads the file (missing or unreadable: no sections). */
  load(): Promise<void> {
    return this.file.load();
  }

  /** The sections, in the order they were created. */
  list(): readonly Section[] {
    return this.state.sections;
  }

  /** The section a thread is in, and since when (Unix seconds); null when in none. */
  placement(threadId: string): { section: Section; enteredAt: number } | null {
    return placementIn(this.state, threadId);
  }

  /** Creates a section. */
  create(name: string, appearance: Appearance): Promise<Section> {
    return this.file.change((draft) => {
      const section: Section = { id: this.newId(), name, appearance: appearance ?? null };
      draft.sections.push(section);
      draft.members[section.id] = [];
      return section;
    });
  }

  /** Renames a section; `appearance` undefined keeps it, null clears it. */
  update(sectionId: string, name: string, appearance: Appearance | undefined): Promise<Section> {
    return this.file.change((draft) => {
      const section = requireIn(draft, sectionId);
      section.name = name;
      if (appearance !== undefined) section.appearance = appearance;
      return section;
    });
  }

  /** Deletes a section; its threads are then in none. */
  delete(sectionId: string): Promise<void> {
    return this.file.change((draft) => {
      requireIn(draft, sectionId);
      draft.sections = draft.sections.filter((section) => section.id !== sectionId);
      delete draft.members[sectionId];
    });
  }

  /** Moves a thread into (before `beforeThreadId`, else last), within, or out of (`sectionId` null) a section. */
  move(threadId: string, sectionId: string | null, beforeThreadId: string | null, nowSeconds: number): Promise<void> {
    return this.file.change((draft) => {
      if (sectionId !== null) requireIn(draft, sectionId);
      const previous = placementIn(draft, threadId);
      for (const members of Object.values(draft.members)) {
        const index = members.findIndex((entry) => entry.threadId === threadId);
        if (index !== -1) members.splice(index, 1);
      }
      if (sectionId === null) return;
      const members = draft.members[sectionId]!;
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
}

function placementIn(state: SectionsFile, threadId: string): { section: Section; enteredAt: number } | null {
  for (const section of state.sections) {
    const member = state.members[section.id]?.find((entry) => entry.threadId === threadId);
    if (member) return { section, enteredAt: member.enteredAt };
  }
  return null;
}

function requireIn(state: SectionsFile, sectionId: string): Section {
  const section = state.sections.find((entry) => entry.id === sectionId);
  if (!section) throw invalidRequest(`no thread section ${sectionId}`);
  return section;
}
