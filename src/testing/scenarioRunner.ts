import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseScenario, type Scenario, type ScenarioAnswer, type ScenarioNormalization } from "./scenario.js";
import { normalizeTranscript, type TranscriptEntry } from "./transcript.js";

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /** The server command (default: this package's CLI under the current Node). */
  readonly command?: readonly string[];
  /** Bound on each step's wait, unless the step sets `timeoutMs` (default 10 s). */
  readonly timeoutMs?: number;
  /** The environment the server starts from (default: this process's); the runner sets the homes. */
  readonly env?: NodeJS.ProcessEnv;
}

const CLI = fileURLToPath(new URL("../cli.cjs", import.meta.url));
const BARRIER = "__barrier";

type Message = Record<string, any>;

/**
 * Plays a scenario against a fresh server (deterministic mode, the scripted model, a temp home
 * and workspace) and returns its normalized transcript. Only messages the scenario causes are
 * recorded; between steps the runner waits until the server is quiet (a barrier request it does
 * not record), so the same scenario gives the same transcript on every run.
 */
export async function runScenario(input: Scenario | unknown, options: RunScenarioOptions = {}): Promise<TranscriptEntry[]> {
  return (await playScenario(input, options)).entries;
}

/** A played scenario: its normalized transcript, and for each entry the step that was playing (-1: the start). */
export interface PlayedScenario {
  readonly entries: TranscriptEntry[];
  readonly stepOf: readonly number[];
}

/** {@link runScenario}, also telling which step each transcript entry came during (for reports of a mismatch). */
export async function playScenario(input: Scenario | unknown, options: RunScenarioOptions = {}): Promise<PlayedScenario> {
  const scenario = parseScenario(input);
  const root = mkdtempSync(path.join(os.tmpdir(), "aas-scenario-"));
  const home = path.join(root, "home");
  const workspace = path.join(root, "workspace");
  const userHome = path.join(root, "user");
  for (const dir of [home, workspace, userHome]) mkdirSync(dir);
  for (const [file, content] of Object.entries(scenario.files)) {
    mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    writeFileSync(path.join(workspace, file), content);
  }
  const scriptFile = path.join(root, "model.json");
  writeFileSync(scriptFile, JSON.stringify(scenario.model));
  const progressFile = path.join(root, "model.served");
  const args = ["app-server", "--deterministic", "--script", scriptFile, "-c", `model_provider="scripted"`, "-c", `scripted_model_progress=${JSON.stringify(progressFile)}`];
  if (Object.keys(scenario.mcpServers).length > 0) {
    const mcpFile = path.join(root, "mcp.json");
    writeFileSync(mcpFile, JSON.stringify(scenario.mcpServers));
    args.push("-c", `scripted_mcp_script=${JSON.stringify(mcpFile)}`);
  }
  for (const [key, value] of Object.entries(scenario.config)) args.push("-c", `${key}=${typeof value === "string" ? JSON.stringify(value) : String(value)}`);
  const command = [...(options.command ?? [process.execPath, CLI]), ...args];
  const env = { ...(options.env ?? process.env), HOME: userHome, AGENT_APP_SERVER_HOME: home, CODEX_HOME: home, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" };
  const run = new ScenarioRun(scenario, command, { cwd: workspace, env }, options.timeoutMs ?? 10_000, workspace);
  try {
    await run.play();
    const patterns = normalizationPatterns(scenario.normalize);
    return { entries: normalizeTranscript(run.transcript, { home, workspace, replace: { [userHome]: "{USER_HOME}", [root]: "{ROOT}" }, patterns }), stepOf: run.stepOf };
  } finally {
    await run.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** A scenario's normalizations as patterns; this machine's host and user name are matched as whole words. */
export function normalizationPatterns(normalize: readonly ScenarioNormalization[]): Array<{ regex: RegExp; with: string }> {
  const word = (text: string) => new RegExp(`(?<![\\w.-])${escapeRegExp(text)}(?![\\w-])`, "g");
  return normalize.map((entry) => {
    if (entry === "hostname") return { regex: word(os.hostname()), with: "{HOSTNAME}" };
    if (entry === "user") return { regex: word(os.userInfo().username), with: "{USER}" };
    if (entry === "time") return { regex: /\b\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?\b|\b\d{2}:\d{2}:\d{2}\b/g, with: "{TIME}" };
    return { regex: new RegExp(entry.pattern, "g"), with: entry.with };
  });
}

/** `text` as a regular expression that matches it literally. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Reads and plays a scenario file. */
export async function runScenarioFile(file: string, options: RunScenarioOptions = {}): Promise<TranscriptEntry[]> {
  return runScenario(JSON.parse(readFileSync(file, "utf8")), options);
}

class ScenarioRun {
  readonly transcript: TranscriptEntry[] = [];
  /** For each transcript entry, the index of the step being played when it came (-1: the start). */
  readonly stepOf: number[] = [];
  private currentStep = -1;
  private child!: ChildProcessWithoutNullStreams;
  private exited!: Promise<void>;
  private received: Message[] = [];
  private cursor = 0;
  private nextId = 1;
  private barriers = 0;
  private readonly vars = new Map<string, unknown>();
  private readonly held: Message[] = [];
  private waiters: Array<() => void> = [];

  constructor(
    private readonly scenario: Scenario,
    private readonly command: readonly string[],
    private readonly spawnOptions: { cwd: string; env: NodeJS.ProcessEnv },
    private readonly timeoutMs: number,
    private readonly workspace: string,
  ) {
    this.vars.set("WORKSPACE", workspace);
  }

  async play(): Promise<void> {
    await this.start();
    for (const [index, step] of this.scenario.steps.entries()) {
      this.currentStep = index;
      try {
        await this.step(step as Record<string, any>, (step as { timeoutMs?: number }).timeoutMs ?? this.timeoutMs);
        await this.barrier();
      } catch (error) {
        throw new Error(`scenario ${this.scenario.name}, steps[${index}]: ${(error as Error).message}`);
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private async start(): Promise<void> {
    const [program, ...args] = this.command;
    this.child = spawn(program!, args, { ...this.spawnOptions, stdio: ["pipe", "pipe", "pipe"] });
    this.received = [];
    this.cursor = 0;
    this.exited = new Promise((resolve) => this.child.on("exit", () => resolve()));
    let buffer = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim()) this.receive(JSON.parse(line) as Message);
      }
    });
    this.child.stderr.resume();
    this.child.stdin.on("error", () => undefined);
    if (this.scenario.initialize) {
      await this.request({ method: "initialize", params: { clientInfo: { name: "scenario", title: "Scenario", version: "1.0.0" } } }, this.timeoutMs);
      this.send({ method: "initialized" });
      await this.barrier();
    }
  }

  private receive(message: Message): void {
    const internal = typeof message.id === "string" && message.id.startsWith(BARRIER);
    if (!internal) this.note({ dir: "s2c", msg: message });
    this.received.push(message);
    if (message.method && message.id !== undefined) {
      const answer = this.scenario.answers[message.method];
      if (answer) this.reply(message, answer);
      else this.held.push(message);
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  private async step(step: Record<string, any>, timeoutMs: number): Promise<void> {
    if ("request" in step) {
      const response = await this.request({ method: step.request, ...(step.params !== undefined ? { params: this.substitute(step.params) } : {}) }, timeoutMs);
      for (const [name, where] of Object.entries((step.save ?? {}) as Record<string, string>)) {
        const value = where.split(".").reduce<any>((node, key) => node?.[key], response);
        if (value === undefined) throw new Error(`nothing at ${where} in the response to ${step.request}`);
        this.vars.set(name, value);
      }
    } else if ("notify" in step) {
      this.send({ method: step.notify, ...(step.params !== undefined ? { params: this.substitute(step.params) } : {}) });
    } else if ("send" in step) {
      const message = this.substitute(step.send) as Message;
      this.send(message);
      if (step.awaitResponse && message.id !== undefined) await this.until((m) => m.id === message.id && !m.method, `the response to ${JSON.stringify(message.id)}`, timeoutMs);
    } else if ("sendRaw" in step) {
      this.note({ dir: "c2s", msg: step.sendRaw });
      this.child.stdin.write(step.sendRaw);
    } else if ("waitFor" in step) {
      for (let n = 0; n < (step.count ?? 1); n++) {
        const found = await this.until((m, index) => index >= this.cursor && m.method === step.waitFor, step.waitFor, timeoutMs);
        this.cursor = this.received.indexOf(found) + 1;
      }
    } else if ("answer" in step) {
      const request = await this.until((m) => m.method === step.answer && this.held.includes(m), `a ${step.answer} request to answer`, timeoutMs);
      this.held.splice(this.held.indexOf(request), 1);
      this.reply(request, "error" in step ? { error: step.error } : { result: step.result });
    } else if ("restart" in step) {
      await this.stop();
      this.note({ dir: "meta", event: "restart" });
      await this.start();
    } else if ("check" in step) {
      const file = path.join(this.workspace, step.check.file);
      const exists = existsSync(file);
      const content = exists ? readFileSync(file, "utf8") : null;
      if (step.check.exists !== undefined && step.check.exists !== exists) throw new Error(`${step.check.file}: expected exists=${step.check.exists}`);
      if (step.check.content !== undefined && step.check.content !== content) throw new Error(`${step.check.file}: content differs`);
      this.note({ dir: "meta", event: "check", file: step.check.file, exists, content });
    }
  }

  private note(entry: TranscriptEntry): void {
    this.transcript.push(entry);
    this.stepOf.push(this.currentStep);
  }

  private send(message: Message): void {
    this.note({ dir: "c2s", msg: message });
    this.child.stdin.write(JSON.stringify(message) + "\n");
  }

  private reply(request: Message, answer: ScenarioAnswer | { error: unknown } | { result: unknown }): void {
    this.send({ id: request.id, ...answer });
  }

  private async request(message: Message, timeoutMs: number): Promise<Message> {
    const id = this.nextId++;
    this.send({ id, ...message });
    return this.until((m) => m.id === id && !m.method, `the response to ${message.method}#${id}`, timeoutMs);
  }

  /** Waits until the server has written everything it had to say so far (a request it answers after). */
  private async barrier(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const id = `${BARRIER}${this.barriers++}`;
    this.child.stdin.write(JSON.stringify({ id, method: "thread/loaded/list", params: {} }) + "\n");
    await this.until((m) => m.id === id, "the server to be quiet", this.timeoutMs);
  }

  private until(match: (message: Message, index: number) => boolean, what: string, timeoutMs: number): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.received.find((message, index) => match(message, index));
        if (!found) return false;
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== listen);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const listen = (): void => {
        if (!check()) this.waiters.push(listen);
      };
      listen();
    });
  }

  private substitute(value: unknown): unknown {
    if (typeof value === "string") {
      const whole = /^\$\{(\w+)\}$/.exec(value);
      if (whole && this.vars.has(whole[1]!)) return this.vars.get(whole[1]!);
      return value.replace(/\$\{(\w+)\}/g, (text, name: string) => (this.vars.has(name) ? String(this.vars.get(name)) : text));
    }
    if (Array.isArray(value)) return value.map((element) => this.substitute(element));
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, this.substitute(element)]));
    return value;
  }
}
