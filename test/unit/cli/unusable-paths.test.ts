/**
 * A directory voe cannot create or write is a coded error naming the errno, before anything else
 * starts; options that do not go together are refused instead of silently ignored.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { writeUnreachableKubeconfig } from '../../support/unreachable-kubeconfig.js';
import { runVoe } from '../../support/run-voe.js';

const voe = (args: string[], env: NodeJS.ProcessEnv = process.env) => runVoe(args, { env });

it('a --dir or --cert-dir under a regular file is a coded error with the errno, no stack trace; bad option pairs are refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-unusable-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'a-file');
  await writeFile(file, '');
  const kubeconfig = await writeUnreachableKubeconfig(dir);
  const under = join(file, 'x');
  const cases: Array<[string[], RegExp]> = [
    [
      ['cluster', 'start', '--dir', under],
      new RegExp(
        `^voe: CONTROLPLANE_START_FAILED: cannot create the lock file in ${under} \\(ENOTDIR\\)\\n$`,
      ),
    ],
    [
      ['cluster', 'run', '--dir', under],
      new RegExp(
        `^voe: CONTROLPLANE_START_FAILED: cannot create the lock file in ${under} \\(ENOTDIR\\)\\n$`,
      ),
    ],
    [
      ['demo', '--local', '--dir', under],
      new RegExp(
        `\\nvoe: CONTROLPLANE_START_FAILED: cannot create the lock file in ${under} \\(ENOTDIR\\)\\n$`,
      ),
    ],
    [
      ['serve', '--dev', '--kubeconfig', kubeconfig, '--port', '0', '--cert-dir', under],
      new RegExp(
        `voe: WEBHOOK_INVALID_OPTIONS: The dev certificate cannot be written to ${under} \\(ENOTDIR\\); pass a --cert-dir voe may create and write\\.\\n$`,
      ),
    ],
    [
      [
        'serve',
        '--dev',
        '--kubeconfig',
        kubeconfig,
        '--port',
        '0',
        '--tls-cert-file',
        file,
        '--tls-key-file',
        file,
      ],
      /voe: WEBHOOK_INVALID_OPTIONS: --tls-cert-file and --tls-key-file serve in cluster; --dev generates its own certificate\. Give one or the other\.\n$/,
    ],
    [
      [
        'serve',
        '--kubeconfig',
        kubeconfig,
        '--port',
        '0',
        '--cert-dir',
        dir,
        '--tls-cert-file',
        file,
        '--tls-key-file',
        file,
      ],
      /voe: WEBHOOK_INVALID_OPTIONS: --cert-dir is where --dev writes its certificate; without --dev give --tls-cert-file and --tls-key-file\.\n$/,
    ],
  ];
  for (const [args, stderr] of cases) {
    const result = await voe(args);
    assert.strictEqual(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, stderr, args.join(' '));
    assert.notMatch(result.stderr, /\n +at /, 'no stack trace');
  }
  const missingTmp = await voe(['serve', '--dev', '--kubeconfig', kubeconfig, '--port', '0'], {
    ...process.env,
    TMPDIR: join(dir, 'gone'),
  });
  assert.strictEqual(missingTmp.code, 2, missingTmp.stderr);
  assert.match(
    missingTmp.stderr,
    /voe: WEBHOOK_INVALID_OPTIONS: The temporary directory for the dev certificate cannot be created in .*gone \(ENOENT\); set TMPDIR/,
  );
  assert.deepStrictEqual(
    (await readdir(dir)).sort(),
    ['a-file', basename(kubeconfig)].sort(),
    'nothing else was created',
  );
});
