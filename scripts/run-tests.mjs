#!/usr/bin/env node
// Runs the compiled test files with mocha:
//   node scripts/run-tests.mjs dist/test/unit dist/test/integration dist/test/e2e
//   node scripts/run-tests.mjs dist/test/unit/kube dist/test/e2e/demo-cli.test.js -- --grep survey
// Each argument before `--` is a directory (every *.test.js below it) or a *.test.js file; what
// follows `--` is passed to mocha as it is. Two mocha runs, stdio inherited:
// 1. every file but the *.alone.test.js ones, two at a time (--parallel --jobs 2; mocha's workers
//    are reused from file to file);
// 2. the *.alone.test.js files one after the other with nothing beside them (tests that leave
//    something machine-wide in every other test's way for a moment, e.g. a process holding a file on
//    a FUSE mount that never answers, which any look through /proc would meet).
// Both load test/support/root-hooks.js (chai-as-promised, onCleanup) and allow each test 15 minutes.
// A run with files under an integration or e2e directory also loads
// test/support/shared-control-plane.js: a mocha global fixture that starts one control plane for
// the whole mocha run, for the test files that share it (useSharedControlPlane).
// Mocha reports with test/support/stats-reporter.js (its spec reporter, plus its totals written to
// a file); the run ends with one line `N passed, N failed` (`, N skipped` when tests were skipped)
// summed over both mocha runs, also written to $VOE_TEST_TOTALS_FILE when that is set (.ci/run
// repeats it as its last line). Exits 1 if anything failed, 2 on a usage error.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const mocha = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const support = join(root, 'dist', 'test', 'support');
const rootHooks = join(support, 'root-hooks.js');
const reporter = join(support, 'stats-reporter.js');
const sharedControlPlane = join(support, 'shared-control-plane.js');
/** Each test's time limit (mocha's --timeout). */
const TEST_TIMEOUT_MS = 15 * 60 * 1000;

function usage(message) {
  process.stderr.write(
    `${message ? `run-tests: ${message}\n` : ''}usage: node scripts/run-tests.mjs DIR|FILE... [-- MOCHA-ARG...]\n`,
  );
  process.exit(2);
}

/** Every *.test.js below `dir`, in no particular order. */
function testFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => join(entry.parentPath, entry.name));
}

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const paths = dashes === -1 ? args : args.slice(0, dashes);
const mochaArgs = dashes === -1 ? [] : args.slice(dashes + 1);
if (paths.length === 0) usage();
const files = [];
for (const path of paths) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) files.push(...testFiles(path));
  else if (stat?.isFile() && path.endsWith('.test.js')) files.push(path);
  else usage(`${path} is neither a directory nor a *.test.js file (run npm run build first?)`);
}
const sorted = [...new Set(files.map((file) => resolve(file)))].sort();
if (sorted.length === 0) usage(`no *.test.js under ${paths.join(', ')}`);
const alone = sorted.filter((file) => file.endsWith('.alone.test.js'));
const together = sorted.filter((file) => !file.endsWith('.alone.test.js'));

/** Whether `batch` holds a test file under an integration or e2e directory. */
const needsControlPlane = (batch) =>
  batch.some(
    (file) => file.includes(`${sep}integration${sep}`) || file.includes(`${sep}e2e${sep}`),
  );

let child;
/** The stop signal this process received, if any: no mocha run starts after it. */
let stopSignal;
// A terminal's Ctrl-C or hangup reaches mocha itself (same process group): wait for it to stop
// and report. A SIGTERM sent to this process alone is passed on.
process.on('SIGINT', () => (stopSignal ??= 'SIGINT'));
process.on('SIGHUP', () => (stopSignal ??= 'SIGHUP'));
process.on('SIGTERM', () => {
  stopSignal ??= 'SIGTERM';
  child?.kill('SIGTERM');
});

const statsDir = mkdtempSync(join(tmpdir(), 'voe-run-tests-'));
process.on('exit', () => rmSync(statsDir, { recursive: true, force: true }));

/** Runs mocha over `batch`; resolves with how it ended and the totals its reporter wrote. */
function run(batch, parallel, name) {
  const statsFile = join(statsDir, `${name}.json`);
  const argv = [
    mocha,
    ...(parallel ? ['--parallel', '--jobs', '2'] : []),
    '--timeout',
    String(TEST_TIMEOUT_MS),
    '--require',
    rootHooks,
    ...(needsControlPlane(batch) ? ['--require', sharedControlPlane] : []),
    '--reporter',
    reporter,
    ...mochaArgs,
    ...batch,
  ];
  return new Promise((done) => {
    child = spawn(process.execPath, argv, {
      stdio: 'inherit',
      env: { ...process.env, VOE_TEST_STATS_FILE: statsFile },
    });
    child.on('error', (error) => {
      process.stderr.write(`run-tests: cannot start ${process.execPath}: ${error.message}\n`);
      process.exit(2);
    });
    child.on('exit', (code, signal) => {
      let stats;
      try {
        stats = JSON.parse(readFileSync(statsFile, 'utf8'));
      } catch {
        stats = undefined;
      }
      done({ code, signal, stats });
    });
  });
}

const totals = { passed: 0, failed: 0, skipped: 0 };
for (const [batch, parallel, name] of [
  [together, true, 'together'],
  [alone, false, 'alone'],
]) {
  if (batch.length === 0) continue;
  const { code, signal, stats } = await run(batch, parallel, name);
  if (signal || stopSignal) {
    // Stopped (mocha itself ends on a SIGINT without dying of it): end the same way, without
    // running what is left (the shell then reports it as such).
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(name);
    rmSync(statsDir, { recursive: true, force: true }); // no 'exit' event when a signal ends it
    process.kill(process.pid, signal ?? stopSignal);
    await new Promise(() => undefined);
  }
  totals.passed += stats?.passes ?? 0;
  totals.skipped += stats?.pending ?? 0;
  totals.failed += stats?.failures ?? 0;
  if (!stats || (code !== 0 && stats.failures === 0)) {
    // mocha ended without its reporter's totals, or failed without a failed test (a global
    // fixture that failed, a file it could not load): counted as one failure.
    process.stderr.write(
      `run-tests: mocha (${name}) exited with code ${code} ${stats ? 'without a failed test' : 'before reporting its totals'}: counted as 1 failed\n`,
    );
    totals.failed += 1;
  }
}
const line = `${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`;
process.stdout.write(`\n${line}\n`);
if (process.env['VOE_TEST_TOTALS_FILE'])
  writeFileSync(process.env['VOE_TEST_TOTALS_FILE'], `${line}\n`);
process.exit(totals.failed === 0 ? 0 : 1);
