import { offsetPage } from "../../threads/paging.js";
import type { SectionStore } from "../../threads/sectionStore.js";
import type { HandlerTable } from "../dispatcher.js";

/** `threadSection/*`: the user's sections of threads (moving a thread between them is `thread/section/move`). */
export function threadSectionHandlers(sections: SectionStore): Pick<HandlerTable, "threadSection/list" | "threadSection/create" | "threadSection/update" | "threadSection/delete"> {
  return {
    "threadSection/list": (params) => offsetPage(sections.list(), params.cursor, params.limit),
    "threadSection/create": async (params) => ({ section: await sections.create(params.name, params.appearance ?? null) }),
    "threadSection/update": async (params) => ({ section: await sections.update(params.sectionId, params.name, params.appearance) }),
    "threadSection/delete": async (params) => {
      await sections.delete(params.sectionId);
      return {};
    },
  };
}
