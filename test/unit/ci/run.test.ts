import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/unit/ci/<this>.js -> the repository's .ci/run
const ciRun = fileURLToPath(new URL('../../../../.ci/run', import.meta.url));

test('.ci/run runs npm ci then npm test from the clone, also where HOME is not set (set -u stopped it at $HOME)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-ci-run-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // A stand-in npm: records its arguments and where it ran; the real one would install and test for minutes.
  await writeFile(join(dir, 'npm'), `#!/bin/sh\necho "$PWD: $*" >> "${join(dir, 'calls')}"\n`);
  await chmod(join(dir, 'npm'), 0o755);
  const env = { PATH: `${dir}:/usr/bin:/bin` };
  const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile('bash', [ciRun], { env, cwd: dir }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
  assert.equal(result.code, 0, result.stderr);
  const root = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');
  assert.deepEqual((await readFile(join(dir, 'calls'), 'utf8')).trim().split('\n'), [
    `${root}: ci --no-audit --no-fund`,
    `${root}: test`,
  ]);
});
