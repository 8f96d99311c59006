#!/usr/bin/env node
// The package's bin: one small CommonJS file (dist/cli.cjs), which Node starts without its ES
// module loader, that loads the server's bundle (scripts/bundle-cli.mjs).
// A command that serves starts loading the server beside the command line's own modules rather
// than after them: Node reads one graph's files while it compiles the other's. A failure is
// reported by the command line's own import of it.
if (process.argv.slice(2).some((arg) => arg === "app-server" || arg === "acp")) void import("./cli/serve.js").catch(() => undefined);
void import("./cli/main.js").then(({ runCommandLine }) => runCommandLine(process.argv.slice(2)));
