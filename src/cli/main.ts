#!/usr/bin/env node
import './worker-signals.js';
import { createProgram } from './program.js';
import { runCli } from './run-cli.js';

await runCli(createProgram(), process.argv);
