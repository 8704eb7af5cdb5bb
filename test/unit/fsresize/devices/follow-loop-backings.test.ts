import { it } from 'mocha';
import { assert } from 'chai';
import { followLoopBackings } from '../../../../src/fsresize/devices/follow-loop-backings.js';
import type { LoopEntry } from '../../../../src/fsresize/devices/loop-table.js';

const file = (name: string, majorMinor: string, path: string, key: string): LoopEntry => ({
  name,
  majorMinor,
  backing: { path, target: { kind: 'file', key } },
});
const over = (name: string, majorMinor: string, path: string, device: string): LoopEntry => ({
  name,
  majorMinor,
  backing: { path, target: { kind: 'device', majorMinor: device } },
});
const noDisk = (): null => null;

it('followLoopBackings: not a loop device, or a loop device without a backing: nothing below', () => {
  const table = [
    file('loop0', '7:0', '/a.img', '1:10'),
    { name: 'loop1', majorMinor: '7:1', backing: null },
  ];
  assert.deepStrictEqual(followLoopBackings(['8:16'], table, noDisk), {
    backing: [],
    devices: [],
    files: new Map(),
    loops: new Set<string>(),
  });
  assert.deepStrictEqual(followLoopBackings(['7:1'], table, noDisk).backing, []);
});

it('followLoopBackings: a loop device over a file, with the other loop devices over the same file (by identity, whatever their path)', () => {
  const table = [
    file('loop0', '7:0', '/a.img', '1:10'),
    file('loop2', '7:2', '/other/name/of/a.img', '1:10'),
    file('loop3', '7:3', '/b.img', '1:11'),
  ];
  const chain = followLoopBackings(['7:0'], table, noDisk);
  assert.deepStrictEqual(chain.backing, [
    { loop: 'loop0', path: '/a.img', kind: 'file', sharedWith: ['loop2'], busy: false },
  ]);
  assert.deepStrictEqual(chain.files, new Map([['1:10', { majorMinor: '7:0', path: '/a.img' }]]));
  assert.deepStrictEqual(chain.devices, []);
  assert.deepStrictEqual(chain.loops, new Set(['loop0', 'loop2']));
});

it('followLoopBackings: a partition of a loop device is followed through its whole disk', () => {
  const chain = followLoopBackings(
    ['259:0', '7:0'],
    [file('loop0', '7:0', '/a.img', '1:10')],
    noDisk,
  );
  assert.deepStrictEqual(
    chain.backing.map((b) => b.loop),
    ['loop0'],
  );
});

it('followLoopBackings: a loop device over a device (a partition: its whole disk too), and down a loop device over a loop device', () => {
  const table = [
    over('loop3', '7:3', '/dev/loop1', '7:1'),
    file('loop1', '7:1', '/b.img', '1:11'),
    over('loop4', '7:4', '/dev/loop1', '7:1'),
    file('loop5', '7:5', '/b.img', '1:11'),
    over('loop6', '7:6', '/dev/sdc1', '8:33'),
  ];
  const chain = followLoopBackings(['7:3'], table, noDisk);
  assert.deepStrictEqual(chain.backing, [
    {
      loop: 'loop3',
      path: '/dev/loop1',
      kind: 'device',
      majorMinor: '7:1',
      sharedWith: ['loop4'],
      busy: false,
    },
    { loop: 'loop1', path: '/b.img', kind: 'file', sharedWith: ['loop5'], busy: false },
  ]);
  assert.deepStrictEqual(chain.devices, ['7:1']);
  assert.deepStrictEqual(chain.loops, new Set(['loop3', 'loop4', 'loop1', 'loop5']));
  const partition = followLoopBackings(['7:6'], table, (mm) => (mm === '8:33' ? '8:32' : null));
  assert.deepStrictEqual(partition.devices, ['8:33', '8:32']);
});

it('followLoopBackings: what cannot be seen is never taken for the same; a cycle or a deep chain ends', () => {
  const unknown = (name: string, majorMinor: string): LoopEntry => ({
    name,
    majorMinor,
    backing: { path: '/gone (deleted)', target: { kind: 'unknown' } },
  });
  assert.deepStrictEqual(
    followLoopBackings(['7:0'], [unknown('loop0', '7:0'), unknown('loop1', '7:1')], noDisk).backing,
    [{ loop: 'loop0', path: '/gone (deleted)', kind: 'unknown', sharedWith: [], busy: false }],
  );
  // The kernel refuses loops, but a table read while devices change may show one.
  assert.strictEqual(
    followLoopBackings(
      ['7:0'],
      [over('loop0', '7:0', '/dev/loop1', '7:1'), over('loop1', '7:1', '/dev/loop0', '7:0')],
      noDisk,
    ).backing.length,
    2,
  );
  const deep = Array.from({ length: 40 }, (_, i) =>
    over(`loop${i}`, `7:${i}`, `/dev/loop${i + 1}`, `7:${i + 1}`),
  );
  assert.strictEqual(followLoopBackings(['7:0'], deep, noDisk).backing.length, 16);
});
