import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../../support/expect-error.js';
import { access, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFsResizeError } from '../../../../src/fsresize/index.js';
import { runDetached } from '../../../../src/fsresize/run/run-detached.js';

const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' };

it('runDetached returns all a tool wrote, short or longer than the first read, and leaves no file behind', async () => {
  const short = await runDetached('seq', ['1', '3'], { env, timeoutMs: 10_000 });
  assert.deepStrictEqual(short, { exitCode: 0, stdout: '1\n2\n3\n', stderr: '' });
  // seq 1 100000 writes 588,895 bytes: more than one read of 64 KiB.
  const long = await runDetached('seq', ['1', '100000'], { env, timeoutMs: 10_000 });
  assert.strictEqual(long.stdout.length, 588_895);
  assert.ok(long.stdout.startsWith('1\n2\n'));
  assert.ok(long.stdout.endsWith('99999\n100000\n'));
  const failing = await runDetached('ls', ['/nonexistent-voe-path'], { env, timeoutMs: 10_000 });
  assert.notStrictEqual(failing.exitCode, 0);
  assert.match(failing.stderr, /nonexistent-voe-path/);
  assert.deepStrictEqual(
    (await readdir(tmpdir())).filter((name) => name.startsWith(`voe-tool-${process.pid}-`)),
    [],
  );
});

it('runDetached whose output files cannot be created (TMPDIR missing, or not a directory) is FSRESIZE_TEMP_FILES_FAILED, and the tool never starts', async () => {
  const work = await mkdtemp(join(tmpdir(), 'voe-run-detached-'));
  const saved = process.env['TMPDIR'];
  try {
    const marker = join(work, 'ran');
    const notADirectory = join(work, 'file');
    await writeFile(notADirectory, '');
    for (const [directory, errno, why] of [
      [join(work, 'missing'), 'ENOENT', 'it does not exist'],
      [notADirectory, 'ENOTDIR', 'it is not a directory'],
    ] as const) {
      process.env['TMPDIR'] = directory;
      await expectRejection(
        runDetached('touch', [marker], {
          env,
          timeoutMs: 10_000,
          onStart: () => assert.fail('the tool started'),
        }),
        (error: unknown) => {
          assert.ok(isFsResizeError(error), String(error));
          assert.strictEqual(error.code, 'FSRESIZE_TEMP_FILES_FAILED');
          assert.strictEqual(
            error.message,
            `cannot create the files for the output of touch ${marker} in the temporary directory ${directory} (${errno}: ${why}); touch was not started, so it changed nothing — fix ${directory}, or point TMPDIR at an existing, writable directory with free space, and retry`,
          );
          assert.deepStrictEqual(error.details, { directory, errno });
          return true;
        },
      );
    }
    await expectRejection(access(marker), undefined, 'touch did not run');
  } finally {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
    await rm(work, { recursive: true, force: true });
  }
});
