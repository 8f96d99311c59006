/**
 * The OpenAI API key a client logged in with (`account/login/start` with `type: "apiKey"`), kept
 * as Codex keeps it: `auth.json` in the home, `{"auth_mode": "apikey", "OPENAI_API_KEY": …}`,
 * readable by its owner only. A key in the environment wins over the stored one.
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../runtime/atomicFile.js";

/** The stored login, if any. */
export class AuthStore {
  private key: string | null = null;

  constructor(private readonly home: string) {}

  private get file(): string {
    return path.join(this.home, "auth.json");
  }

  /** Reads `auth.json` (a missing or unreadable file is no login). */
  async load(): Promise<void> {
    try {
      const parsed = JSON.parse(await readFile(this.file, "utf8")) as { OPENAI_API_KEY?: unknown };
      this.key = typeof parsed.OPENAI_API_KEY === "string" && parsed.OPENAI_API_KEY ? parsed.OPENAI_API_KEY : null;
    } catch {
      this.key = null;
    }
  }

  /** Whether an API key is stored. */
  get loggedIn(): boolean {
    return this.key !== null;
  }

  /** Stores the key (0600, written whole then renamed into place). */
  async login(apiKey: string): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: apiKey }, null, 2) + "\n", { mode: 0o600 });
    this.key = apiKey;
  }

  /** Forgets the key and removes `auth.json`. */
  async logout(): Promise<void> {
    await rm(this.file, { force: true });
    this.key = null;
  }

  /** The environment turns see: `env`, with the stored key as `OPENAI_API_KEY` unless `env` has one. */
  environment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return this.key !== null && !env.OPENAI_API_KEY ? { ...env, OPENAI_API_KEY: this.key } : env;
  }
}
