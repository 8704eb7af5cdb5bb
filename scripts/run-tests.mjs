#!/usr/bin/env node
// Runs the compiled test files under the given directories with node's test runner:
//   node scripts/run-tests.mjs dist/test/unit dist/test/integration dist/test/e2e
// lists every *.test.js below them (sorted) and runs
//   node --test --test-concurrency=2 --test-timeout=900000 <files...>
// with stdio inherited, then the *.alone.test.js files one at a time with nothing beside them
// (tests that leave something machine-wide in every other test's way for a moment, e.g. a process
// holding a file on a FUSE mount that never answers, which any look through /proc would meet),
// exiting with the first failure's status. Files, not directories: from Node 21 on, `node --test`
// takes its arguments as globs and runs a directory as if it were a test file
// (https://github.com/nodejs/node/issues/50219), and package.json allows Node >= 20.19.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

/** Every *.test.js below `dir`, in no particular order. */
function testFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  process.stderr.write('usage: node scripts/run-tests.mjs DIR...\n');
  process.exit(2);
}
for (const dir of dirs) {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`run-tests: ${dir} is not a directory (run npm run build first?)\n`);
    process.exit(2);
  }
}
const files = [...new Set(dirs.flatMap(testFiles))].sort();
if (files.length === 0) {
  process.stderr.write(`run-tests: no *.test.js under ${dirs.join(', ')}\n`);
  process.exit(2);
}
const alone = files.filter((file) => file.endsWith('.alone.test.js'));
const together = files.filter((file) => !alone.includes(file));

let child;
// A terminal's Ctrl-C or hangup reaches the test runner itself (same process group): wait for it
// to stop its test files and report. A SIGTERM sent to this process alone is passed on.
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
process.on('SIGTERM', () => child?.kill('SIGTERM'));

/** Runs node's test runner over `batch`; resolves with how it ended. */
function run(batch, concurrency) {
  return new Promise((resolve) => {
    child = spawn(
      process.execPath,
      ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=900000', ...batch],
      { stdio: 'inherit' },
    );
    child.on('error', (error) => {
      process.stderr.write(`run-tests: cannot start ${process.execPath}: ${error.message}\n`);
      process.exit(2);
    });
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

let failed = 0;
for (const [batch, concurrency] of [
  [together, 2],
  [alone, 1],
]) {
  if (batch.length === 0) continue;
  const { code, signal } = await run(batch, concurrency);
  if (signal) {
    // Ended by a signal: end the same way (the shell then reports it as such).
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(name);
    process.kill(process.pid, signal);
    await new Promise(() => undefined);
  }
  failed ||= code ?? 1;
}
process.exit(failed);
