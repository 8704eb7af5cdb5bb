import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseGuestDf } from '../../../../src/demo/lab/parse-guest-df.js';

describe("parseGuestDf: the guest's df -P -B1 MOUNT", () => {
  it("busybox 1.35's POSIX format: the filesystem line's bytes", () => {
    assert.deepStrictEqual(
      parseGuestDf(
        'Filesystem           1-blocks       Used Available Capacity Mounted on\n' +
          '/dev/vda             1023303680     24576 956178432   0% /mnt/data\n',
        '/mnt/data',
      ),
      {
        mountPoint: '/mnt/data',
        filesystem: '/dev/vda',
        sizeBytes: '1023303680',
        usedBytes: '24576',
        availableBytes: '956178432',
      },
    );
  });

  const bad: Array<[string, string]> = [
    ['no output', ''],
    ['a header only', 'Filesystem 1-blocks Used Available Capacity Mounted on\n'],
    [
      'two filesystem lines',
      'Filesystem 1-blocks Used Available Capacity Mounted on\n/dev/vda 1 1 0 100% /a\n/dev/vdb 1 1 0 100% /b\n',
    ],
    [
      'a size that is not a number',
      'Filesystem 1-blocks Used Available Capacity Mounted on\n/dev/vda 1.0G 1 0 100% /a\n',
    ],
  ];
  for (const [name, stdout] of bad)
    it(`${name}: undefined`, () => {
      assert.isUndefined(parseGuestDf(stdout, '/a'));
    });
});
