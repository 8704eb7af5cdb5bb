#!/usr/bin/env node
import { exitIfAnswered } from './exit-once-answered.js';
import { watchDiagnostics, watchOutput } from './output-closed.js';
import { commandNamed } from './command-named.js';
import { createProgram } from './program.js';
import { runCli } from './run-cli.js';

watchOutput();
watchDiagnostics();
await runCli(await createProgram(commandNamed(process.argv)), process.argv);
exitIfAnswered();
