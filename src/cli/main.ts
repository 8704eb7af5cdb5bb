#!/usr/bin/env node
import { createProgram } from './program.js';
import { runCli } from './run-cli.js';

await runCli(createProgram(), process.argv);
