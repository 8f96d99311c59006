/**
 * What `agent-app-server` declares to embedders: the server and its options as plain interfaces.
 * The root entry's declarations import only this (and the config and logger types), not the
 * server's internals (dispatcher, thread manager, model clients, MCP SDK), so a consumer's
 * type-check does not load and check those.
 */
import type { Readable, Writable } from "node:stream";
import type { Config } from "./config/schema.js";
import type { ConfigWarningNotification } from "./protocol/types.js";
import type { Clock } from "./runtime/clock.js";
import type { IdSource } from "./runtime/ids.js";
import type { Logger } from "./runtime/logger.js";

/** One client's connection to an {@link AppServer}, as `connect` returns it. */
export interface AppServerConnection {
  /** Resolves once every request read so far has been answered. */
  idle(): Promise<void>;
  /** Flushes what was written and closes the output. */
  close(): Promise<void>;
  /** Registers a listener for the end of the client's input (EOF or a read error). */
  onInputClosed(listener: () => void): void;
  /** Registers a listener for the end of the output: nothing more can reach this client. */
  onOutputClosed(listener: () => void): void;
}

/** A server: any number of client connections over byte streams, sharing threads and config. */
export interface AppServer {
  /** Loads stored state (the thread index); call once before connecting clients. */
  init(): Promise<void>;
  /** Serves one client over a pair of streams (stdio, a socket, or in-memory streams). */
  connect(input: Readable, output: Writable): AppServerConnection;
  /**
   * Stops serving: reads no more input, answers every request already read, flushes every
   * connection, then closes them.
   */
  shutdown(): Promise<void>;
}

/** How to build an {@link AppServer}. */
export interface AppServerOptions {
  /** The home directory (config, sessions); must exist. */
  readonly home: string;
  readonly config: Config;
  /** Problems in the config that did not stop the server; each client is told after `initialize`. */
  readonly configWarnings?: readonly ConfigWarningNotification[] | undefined;
  readonly logger: Logger;
  readonly clock?: Clock | undefined;
  readonly ids?: IdSource | undefined;
  /**
   * Whether warnings about how long something took (a slow login profile) reach clients; off for
   * `--deterministic`, whose transcripts must not depend on how busy the machine is (default: on).
   */
  readonly timingWarnings?: boolean | undefined;
  /** Directory that relative thread `cwd`s resolve against (default: the process cwd). */
  readonly cwd?: string | undefined;
  /** Longest accepted input line in bytes (default: config `max_message_bytes`, else 64 MiB). */
  readonly maxLineBytes?: number | undefined;
  /**
   * Requests one connection may have admitted and unanswered before -32001 (default: config
   * `max_pending_requests_per_connection`, else 128). Over all connections together the bound is
   * config `max_pending_requests_total` (default 1024).
   */
  readonly maxPendingRequests?: number | undefined;
  /** Write `"jsonrpc": "2.0"` on outgoing messages (Codex does not). */
  readonly includeJsonrpc?: boolean | undefined;
  /** Environment turns read API keys and provider URLs from (default: the process environment). */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Append every message of every connection to JSONL files in this directory (secrets redacted). */
  readonly sessionLogDir?: string | undefined;
}
