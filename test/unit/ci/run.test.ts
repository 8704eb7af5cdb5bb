import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/unit/ci/<this>.js -> the repository's .ci/run
const ciRun = fileURLToPath(new URL('../../../../.ci/run', import.meta.url));
const root = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');

/**
 * Runs .ci/run with a stand-in npm on PATH (the real one would install and test for minutes): it
 * records its arguments and where it ran, and for `npm test` writes `totals` where the test runner
 * writes its totals line, then exits with `testExit`.
 */
async function ciWithStandInNpm(
  totals: string,
  testExit: number,
): Promise<{ code: number; stdout: string; stderr: string; calls: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-ci-run-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  await writeFile(
    join(dir, 'npm'),
    [
      '#!/bin/sh',
      `echo "$PWD: $*" >> "${join(dir, 'calls')}"`,
      '[ "$1" = test ] || exit 0',
      'echo "test output"',
      `echo "${totals}" > "$VOE_TEST_TOTALS_FILE"`,
      `exit ${testExit}`,
      '',
    ].join('\n'),
  );
  await chmod(join(dir, 'npm'), 0o755);
  const env = { PATH: `${dir}:/usr/bin:/bin` };
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('bash', [ciRun], { env, cwd: dir }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
  const calls = (await readFile(join(dir, 'calls'), 'utf8')).trim().split('\n');
  return { ...result, calls };
}

it('.ci/run runs npm ci then npm test from the clone, also where HOME is not set (set -u stopped it at $HOME)', async () => {
  const result = await ciWithStandInNpm('7 passed, 0 failed', 0);
  assert.strictEqual(result.code, 0, result.stderr);
  assert.deepStrictEqual(result.calls, [`${root}: ci --no-audit --no-fund`, `${root}: test`]);
});

it(".ci/run ends with its time, then the test runner's totals line again, and exits with npm test's status", async () => {
  const passed = await ciWithStandInNpm('7 passed, 0 failed, 1 skipped', 0);
  assert.strictEqual(passed.code, 0, passed.stderr);
  assert.match(
    passed.stdout,
    /^test output\nci: finished in \d+ s\n7 passed, 0 failed, 1 skipped\n$/,
  );
  const failed = await ciWithStandInNpm('6 passed, 1 failed', 1);
  assert.strictEqual(failed.code, 1, failed.stderr);
  assert.match(failed.stdout, /^test output\nci: finished in \d+ s\n6 passed, 1 failed\n$/);
});
