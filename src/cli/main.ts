import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { HELP_TEXT, parseCommandLine } from "./args.js";
import { UsageError } from "./usageError.js";
import { ConfigError } from "../config/load.js";
import { StartupError } from "../runtime/systemErrors.js";
import { createLogger, routeConsoleToStderr } from "../runtime/logger.js";
import { CODEX_PROTOCOL_VERSION, SERVER_VERSION } from "../runtime/version.js";

// stdout is the protocol channel: nothing else may ever be printed there.
routeConsoleToStderr();
// fetch (undici) parses HTTP with llhttp compiled to WebAssembly. Once a few model responses have
// made it hot, V8 recompiled its one huge parser function with TurboFan, which took some 25 MB for
// a moment: a turn's peak RSS went from ~90 to ~117 MiB. Liftoff's code parses model streams as
// fast (bench/run.mjs deltas/s unchanged at 2,000 and 20,000 deltas); we run no other WebAssembly.
setFlagsFromString("--liftoff-only");
const logger = createLogger();

/**
 * Installed under the name `codex` (a symlink on PATH), we answer `--version` as the Codex release
 * whose protocol we speak: launchers that check `codex --version` against a minimum then accept us.
 */
const invokedAsCodex = path.basename(process.argv[1] ?? "").replace(/\.(c|m)?js$/, "") === "codex";

async function main(argv: readonly string[]): Promise<void> {
  const { command, ignored } = parseCommandLine(argv);
  for (const note of ignored) logger.info(`ignoring ${note}`);
  switch (command.kind) {
    case "version":
      process.stdout.write(invokedAsCodex ? `codex-cli ${CODEX_PROTOCOL_VERSION}\n` : `agent-app-server ${SERVER_VERSION}\n`);
      return;
    case "print-startup-config": {
      const { printStartupConfig } = await import("./startupConfig.js");
      process.exitCode = await printStartupConfig(command.overrides, command.strictConfig);
      return;
    }
    case "help":
      process.stdout.write(HELP_TEXT);
      return;
    case "generate-json-schema": {
      const { generateJsonSchemas, renderSchemaFile } = await import("../protocol/jsonSchema.js");
      await mkdir(command.outDir, { recursive: true });
      for (const [file, schema] of generateJsonSchemas()) {
        await writeFile(path.join(command.outDir, file), renderSchemaFile(schema));
      }
      return;
    }
    case "generate-ts": {
      const { generateTypeScript } = await import("../protocol/typeScript.js");
      await mkdir(command.outDir, { recursive: true });
      await writeFile(path.join(command.outDir, "protocol.d.ts"), generateTypeScript());
      return;
    }
    case "replay": {
      const { replay } = await import("./replay.js");
      process.exitCode = await replay(command.scenarios, command.mode);
      return;
    }
    case "demo": {
      const { runDemo } = await import("./demo.js");
      process.exitCode = await runDemo(command.live);
      return;
    }
    case "record": {
      const [{ record, recordFromSessionLog, recordFromThread }, { serve }] = await Promise.all([import("../record/recordSession.js"), import("./serve.js")]);
      if (command.fromSessionLog !== null) await recordFromSessionLog(command.out, command.fromSessionLog, logger);
      else if (command.fromThread !== null) await recordFromThread(command.out, command.fromThread, logger);
      else await record(command.out, { ...command.serve, logger }, serve);
      return;
    }
    case "acp": {
      const { serve } = await import("./serve.js");
      await serve({ ...command.serve, logger, face: "acp" });
      return;
    }
    case "serve": {
      // Loaded only to serve: `--version` and `--help` answer without the server's modules.
      const { serve } = await import("./serve.js");
      await serve({ ...command, logger });
    }
  }
}

/** Runs the command `argv` names, exiting with a message on a usage, config or start-up error. */
export function runCommandLine(argv: readonly string[]): void {
  main(argv).catch(exitOnError);
}

function exitOnError(error: unknown): void {
  if (error instanceof UsageError) {
    // The message says what to change; the whole help would bury it.
    process.stderr.write(`agent-app-server: ${error.message}\n(agent-app-server --help lists the commands and options)\n`);
    process.exit(2);
  }
  if (error instanceof ConfigError || error instanceof StartupError) {
    process.stderr.write(`agent-app-server: ${error.message}\n`);
    process.exit(1);
  }
  logger.fatal({ err: error }, "failed to start");
  process.exit(1);
}
