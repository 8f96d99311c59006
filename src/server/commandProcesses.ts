import type { ExecProcess } from "../agent/index.js";
import { invalidRequest } from "../protocol/errors.js";
import type { ClientConnection } from "./connection.js";

/**
 * The `command/exec` processes of each connection, by the client's `processId` (connection-scoped,
 * as in Codex; commands started without one get a key no client can name). A connection's
 * commands are killed when it closes, and every command when the server stops.
 */
export class CommandProcesses {
  // A command is listed from the moment its request arrives (while it is still being set up), so
  // a write or terminate sent right after `command/exec` finds it.
  private readonly byConnection = new Map<ClientConnection, Map<string | symbol, Promise<ExecProcess>>>();
  private readonly closed = new WeakSet<ClientConnection>();
  private stopping = false;

  /**
   * Lists a command under `processId` at once and starts it with `launch`; refuses a `processId`
   * the connection already has running, and any start once the connection or the server is closing.
   * The command stays listed until it finished (or `launch` failed).
   */
  start(connection: ClientConnection, processId: string | null, launch: () => Promise<ExecProcess>): Promise<ExecProcess> {
    if (this.stopping) throw invalidRequest("command/exec refused: the server is shutting down");
    if (this.closed.has(connection)) throw invalidRequest("command/exec refused: the connection is closing");
    let commands = this.byConnection.get(connection);
    if (processId !== null && commands?.has(processId)) {
      throw invalidRequest(`duplicate active command/exec process id: ${JSON.stringify(processId)}`);
    }
    if (!commands) {
      commands = new Map();
      this.byConnection.set(connection, commands);
      // Once the client can no longer reach its commands (input or output gone), nothing may outlive it.
      connection.onInputClosed(() => this.closeConnection(connection));
      connection.onOutputClosed(() => this.closeConnection(connection));
    }
    const key = processId ?? Symbol("command/exec");
    const started = launch();
    commands.set(key, started);
    const unlist = () => {
      if (commands.get(key) === started) commands.delete(key);
    };
    void started.then((command) => command.finished.finally(unlist), unlist);
    return started;
  }

  /** The connection's command with `processId`, once started; -32600 when there is none. */
  async get(connection: ClientConnection, processId: string): Promise<ExecProcess> {
    const started = this.byConnection.get(connection)?.get(processId);
    const command = await started?.catch(() => undefined);
    if (!command) throw invalidRequest(`no active command/exec for process id ${JSON.stringify(processId)}`);
    return command;
  }

  /** Kills every command and refuses new ones (server shutdown). */
  stop(): void {
    this.stopping = true;
    for (const commands of this.byConnection.values()) terminateAll(commands);
  }

  private closeConnection(connection: ClientConnection): void {
    this.closed.add(connection);
    const commands = this.byConnection.get(connection);
    this.byConnection.delete(connection);
    if (commands) terminateAll(commands);
  }
}

/** Kills each command, including those still being set up (as soon as they start). */
function terminateAll(commands: Map<string | symbol, Promise<ExecProcess>>): void {
  for (const started of commands.values()) {
    void started.then(
      (command) => command.terminate(),
      () => undefined,
    );
  }
}
