import { writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Config } from "../config/schema.js";
import { startMockModel, type MockModel } from "./mockModelServer.js";
import { parseMockScript, type MockResponseInput } from "./mockScript.js";
import { StartupError } from "../runtime/systemErrors.js";
import { readStartupJson } from "./startupJson.js";

/** The provider id that means "the scripted mock model, in this process". */
export const SCRIPTED_PROVIDER = "scripted";

/** A config whose `scripted` provider points at a running mock, and how to stop it. */
export interface ScriptedProvider {
  readonly config: Config;
  /** Points any config (one reloaded after a config write, say) at the running mock. */
  readonly withProvider: (config: Config) => Config;
  readonly mock: MockModel;
}

/**
 * Starts the scripted model when the config asks for it (`model_provider = "scripted"`) or a
 * script is given: the mock model server on 127.0.0.1, serving the script (a JSON file, or
 * responses given inline), so turns go through the real openai client. Returns null when not asked.
 */
export async function startScriptedProvider(
  config: Config,
  script: { readonly file?: string | null; readonly responses?: readonly MockResponseInput[] } = {},
): Promise<ScriptedProvider | null> {
  const file = script.file ?? config.scripted_model_script ?? null;
  if (config.model_provider !== SCRIPTED_PROVIDER && !file && !script.responses) return null;
  let responses = script.responses ?? [];
  if (file) {
    // One sentence naming the file and the fix: a start-up failure, not a crash.
    const json = await readStartupJson(file, "the model script", "; give the path of a JSON script (examples/hello.script.json is one)");
    try {
      responses = parseMockScript(json);
    } catch (error) {
      throw new StartupError(`the model script ${file}: ${(error as Error).message}`);
    }
  }
  // With a progress file the script is a tape: a restarted server goes on where the last one stopped.
  const progress = config.scripted_model_progress ?? null;
  const served = progress ? Number(await readFile(progress, "utf8").catch(() => "0")) || 0 : 0;
  const mock = await startMockModel({
    responses: responses.slice(served),
    onRequest: (_request, count) => {
      if (progress) writeFileSync(progress, String(served + count));
    },
  });
  const withProvider = (base: Config): Config => ({
    ...base,
    model_provider: base.model_provider ?? SCRIPTED_PROVIDER,
    model_providers: {
      ...base.model_providers,
      [SCRIPTED_PROVIDER]: { name: "scripted", wire_api: "responses", ...base.model_providers?.[SCRIPTED_PROVIDER], base_url: mock.url },
    },
  });
  return { mock, config: withProvider(config), withProvider };
}
