#!/usr/bin/env node
import { exitIfAnswered } from './exit-once-answered.js';
import { watchDiagnostics, watchOutput } from './output-closed.js';
import { createProgram } from './program.js';
import { runCli } from './run-cli.js';

watchOutput();
watchDiagnostics();
await runCli(createProgram(), process.argv);
exitIfAnswered();
