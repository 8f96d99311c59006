import * as z from "zod";
import { deniedActionApproval, fromResponseItems } from "../../agent/index.js";
import { GuardianAssessmentEvent } from "../../protocol/autoReview.js";
import { invalidRequest } from "../../protocol/errors.js";
import type { ClientRequestMethod } from "../../protocol/methods.js";
import { threadNotFound } from "../../threads/errors.js";
import { itemsPage } from "../../threads/historyPaging.js";
import { offsetPage } from "../../threads/paging.js";
import type { ThreadManager } from "../../threads/threadManager.js";
import type { ClientConnection } from "../connection.js";
import type { HandlerTable } from "../dispatcher.js";
import { requireExperimentalApi } from "./experimentalFields.js";
import { respond } from "./respond.js";

type ThreadHandlers = Pick<HandlerTable, Extract<ClientRequestMethod, `thread/${string}`>>;

/** The `thread/*` methods, each a thin call into the ThreadManager. */
export function threadHandlers(threads: ThreadManager<ClientConnection>): ThreadHandlers {
  return {
    "thread/start": async (params, context) => {
      // As in Codex, client-run tools and permission profiles are part of the experimental API.
      requireExperimentalApi(context, "thread/start.dynamicTools", params.dynamicTools);
      requireExperimentalApi(context, "thread/start.permissions", params.permissions);
      return respond(context, await threads.start(params, context.connection, context.connection.client?.clientName ?? null));
    },
    "thread/resume": async (params, context) => {
      requireExperimentalApi(context, "thread/resume.permissions", params.permissions);
      requireExperimentalApi(context, "thread/resume.initialTurnsPage", params.initialTurnsPage);
      return respond(context, await threads.resume(params, context.connection));
    },
    "thread/fork": async (params, context) => {
      requireExperimentalApi(context, "thread/fork.permissions", params.permissions);
      return respond(context, await threads.fork(params, context.connection));
    },
    "thread/list": (params) => threads.edits.list(params),
    "thread/read": async (params, context) => {
      const read = await threads.edits.read(params.threadId, params.includeTurns ?? false);
      if (params.includeTurns) threads.noticeFullHistory(context.connection, "read");
      return read;
    },
    "thread/turns/list": (params) => threads.turns(params),
    "thread/archive": async (params, context) => respond(context, await threads.edits.archive(params.threadId, context.connection)),
    "thread/unarchive": async (params, context) =>
      respond(context, await threads.edits.unarchive(params.threadId, context.connection)),
    "thread/name/set": async (params, context) =>
      respond(context, await threads.edits.setName(params.threadId, params.name, context.connection)),
    "thread/metadata/update": async (params) => ({
      thread: await threads.edits.updateMetadata(params.threadId, params.gitInfo ?? null),
    }),
    "thread/loaded/list": (params) => threads.loadedIds(params.cursor, params.limit),
    "thread/unsubscribe": (params, context) => ({ status: threads.unsubscribe(params.threadId, context.connection) }),
    "thread/compact/start": async (params, context) => respond(context, await threads.get(params.threadId).compact()),
    "thread/items/list": async (params) => itemsPage((await threads.history(params.threadId, threadNotFound)).turns, params),
    "thread/section/move": async (params, context) =>
      respond(context, await threads.edits.moveToSection(params.threadId, params.sectionId, params.beforeThreadId ?? null, context.connection)),
    "thread/revert": (params, context) => threads.edits.revert(params.threadId, params.beforeTurnId, context.connection),
    "thread/inject_items": async (params, context) => {
      const read = fromResponseItems(params.items);
      if ("problem" in read) throw invalidRequest(read.problem);
      return threads.edits.injectItems(params.threadId, read.items, context.connection);
    },
    "thread/attachment/add": async (params, context) =>
      respond(context, await threads.attachments.add(params.threadId, params.attachmentType, params.identityKey, params.payload, context.connection)),
    "thread/attachment/list": (params) => threads.attachments.list(params.threadId, params.cursor, params.limit),
    "thread/attachment/remove": async (params, context) =>
      respond(context, await threads.attachments.remove(params.threadId, params.attachmentType, params.identityKey, context.connection)),
    "thread/attachmentOwner/list": (params) =>
      threads.attachments.owners(params.attachmentType, params.identityKey, params.archived, params.cursor, params.limit),
    "thread/approveGuardianDeniedAction": async (params, context) => {
      const event = GuardianAssessmentEvent.safeParse(params.event);
      if (!event.success) throw invalidRequest(`invalid Guardian denial event: ${z.prettifyError(event.error).replaceAll("\n", " ")}`);
      threads.get(params.threadId);
      // As Codex: approving a review that did not deny anything changes nothing.
      if (event.data.status !== "denied") return {};
      return threads.edits.injectItems(params.threadId, [deniedActionApproval(event.data)], context.connection);
    },
    "thread/delete": async (params, context) => respond(context, await threads.edits.delete(params.threadId, context.connection)),
    "thread/shellCommand": async (params, context) => respond(context, await threads.get(params.threadId).shellCommand(params)),
    "thread/goal/set": async (params, context) => respond(context, await threads.edits.setGoal(params, context.connection)),
    "thread/goal/get": (params) => threads.edits.getGoal(params.threadId),
    "thread/goal/clear": async (params, context) => respond(context, await threads.edits.clearGoal(params.threadId, context.connection)),
    "thread/readState/update": (params) => threads.markRead(params.threadId, params.expectedRevision),
    "thread/backgroundTerminals/list": (params) => offsetPage(threads.get(params.threadId).terminals.running(), params.cursor, params.limit),
    "thread/backgroundTerminals/terminate": (params) => ({ terminated: threads.get(params.threadId).terminals.terminate(params.processId) }),
    "thread/backgroundTerminals/clean": (params) => {
      threads.get(params.threadId).terminals.clean();
      return {};
    },
  };
}
