#!/usr/bin/env node
import './worker-signals.js';
import { exitIfAnswered } from './exit-once-answered.js';
import { createProgram } from './program.js';
import { runCli } from './run-cli.js';

await runCli(createProgram(), process.argv);
exitIfAnswered();
