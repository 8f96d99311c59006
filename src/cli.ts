#!/usr/bin/env node
// The package's bin: one small CommonJS file (dist/cli.cjs), which Node starts without its ES
// module loader, that loads the server's bundle (scripts/bundle-cli.mjs).
void import("./cli/main.js").then(({ runCommandLine }) => runCommandLine(process.argv.slice(2)));
