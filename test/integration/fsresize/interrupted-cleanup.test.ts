import { it } from 'mocha';
import { assert } from 'chai';
import { eventually } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sh } from '../../support/fsresize/loop-device.js';

const fixture = fileURLToPath(
  new URL('../../support/fixtures/attach-loop-then-wait.js', import.meta.url),
);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  it(`an interrupted test process (${signal}) unmounts and detaches its loop devices`, async () => {
    const child = spawn(process.execPath, [fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    await eventually(() => out.includes('\n'), 60_000, 'the fixture to print its loop device', {
      intervalMs: 50,
      giveUp: () => (child.exitCode === null ? undefined : 'the fixture exited'),
    });
    const held = JSON.parse(out.split('\n')[0] ?? '{}') as {
      device: string;
      mountPoint: string;
      root: string;
    };
    assert.match(
      await sh('losetup', ['--list', '--noheadings', '--output', 'NAME']),
      new RegExp(`${held.device}\\b`),
    );
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
    const mounts = await readFile('/proc/self/mounts', 'utf8');
    assert.isFalse(mounts.includes(` ${held.mountPoint} `), 'unmounted');
    // By backing file, not by name: a test file running beside this one may attach the freed /dev/loopN at once.
    const backed = (await sh('losetup', ['--list', '--noheadings', '--output', 'NAME,BACK-FILE']))
      .split('\n')
      .filter((line) => line.includes(held.root));
    assert.deepStrictEqual(backed, [], 'detached');
    await expectRejection(access(held.root), undefined, 'scratch directory removed');
  });
}
