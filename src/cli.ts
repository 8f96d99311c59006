#!/usr/bin/env node
import { EarlyHandshake } from "./cli/earlyHandshake.js";

// Loading the server's modules is most of a start. This entry loads only the early handshake,
// which answers `initialize` meanwhile when the last start like this one got as far as serving.
const argv = process.argv.slice(2);
const early = EarlyHandshake.start(argv, process.env, () => ({ stdin: process.stdin, stdout: process.stdout }));
const load = () => import("./cli/main.js").then(({ runCommandLine }) => runCommandLine(argv, early));
// One turn of the event loop first: an `initialize` already in the pipe is answered before the load.
if (early) setImmediate(load);
else void load();
