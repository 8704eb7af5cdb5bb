import { describe, it } from 'mocha';
import { assert } from 'chai';
import { readCapacityRange, roundUp } from '../../../src/guest-csi-bridge/csi/capacity-range.js';
import {
  readCapability,
  requireCapability,
  unsupportedReason,
} from '../../../src/guest-csi-bridge/csi/volume-capability.js';
import type { VolumeCapabilityMessage } from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';
import { expectThrow } from '../../support/expect-error.js';

const mount = (fs_type = '', mode = 'SINGLE_NODE_WRITER'): VolumeCapabilityMessage =>
  ({
    mount: { fs_type, mount_flags: ['noatime'] },
    block: null,
    access_mode: { mode },
    access_type: 'mount',
  }) as VolumeCapabilityMessage;
const block = (mode = 'SINGLE_NODE_WRITER'): VolumeCapabilityMessage =>
  ({
    block: {},
    mount: null,
    access_mode: { mode },
    access_type: 'block',
  }) as VolumeCapabilityMessage;

describe('volume capabilities', () => {
  it('reads mount and block', () => {
    assert.deepStrictEqual(readCapability(mount('xfs'), 'c'), {
      accessType: 'mount',
      fsType: 'xfs',
      mountFlags: ['noatime'],
      accessMode: 'SINGLE_NODE_WRITER',
    });
    assert.strictEqual(readCapability(block(), 'c')?.accessType, 'block');
    assert.isUndefined(readCapability(null, 'c'));
  });

  it('neither or both access types: INVALID_ARGUMENT', () => {
    expectThrow(
      () => readCapability({ block: null, mount: null } as VolumeCapabilityMessage, 'c'),
      hasCode('CSI_INVALID_ARGUMENT'),
    );
    expectThrow(
      () =>
        readCapability(
          { block: {}, mount: { fs_type: '', mount_flags: [] } } as VolumeCapabilityMessage,
          'c',
        ),
      hasCode('CSI_INVALID_ARGUMENT'),
    );
    expectThrow(
      () => requireCapability(null, 'volume_capability'),
      hasCode('CSI_INVALID_ARGUMENT', /volume_capability is required/),
    );
  });

  const table: Array<[string, VolumeCapabilityMessage, RegExp | undefined]> = [
    ['single node writer mount', mount(), undefined],
    ['single node writer block', block(), undefined],
    ['reader only', mount('ext4', 'SINGLE_NODE_READER_ONLY'), undefined],
    ['xfs', mount('xfs'), undefined],
    ['multi node multi writer mount (a share)', mount('', 'MULTI_NODE_MULTI_WRITER'), undefined],
    ['a share ignores fs_type (NFS)', mount('btrfs', 'MULTI_NODE_MULTI_WRITER'), undefined],
    [
      'multi node multi writer block',
      block('MULTI_NODE_MULTI_WRITER'),
      /MULTI_NODE_MULTI_WRITER is served for mount volumes only/,
    ],
    ['multi node reader only', mount('', 'MULTI_NODE_READER_ONLY'), /is not supported/],
    ['unknown access mode', mount('', 'UNKNOWN'), /UNKNOWN is not supported/],
    ['btrfs is not made', mount('btrfs'), /btrfs is not supported/],
  ];
  for (const [name, message, reason] of table) {
    it(`unsupportedReason: ${name}`, () => {
      const found = unsupportedReason(requireCapability(message, 'c'));
      if (reason === undefined) assert.isUndefined(found);
      else assert.match(found ?? '', reason);
    });
  }
});

describe('capacity ranges', () => {
  it('reads int64 strings; absent is 0', () => {
    assert.deepStrictEqual(readCapacityRange({ required_bytes: '10737418240', limit_bytes: '0' }), {
      requiredBytes: 10737418240n,
      limitBytes: 0n,
    });
    assert.deepStrictEqual(readCapacityRange(null), { requiredBytes: 0n, limitBytes: 0n });
  });
  it('refuses negative sizes and a limit below the size', () => {
    expectThrow(
      () => readCapacityRange({ required_bytes: '-1', limit_bytes: '0' }),
      hasCode('CSI_INVALID_ARGUMENT'),
    );
    expectThrow(
      () => readCapacityRange({ required_bytes: '10', limit_bytes: '5' }),
      hasCode('CSI_INVALID_ARGUMENT', /above limit_bytes/),
    );
  });
  it('roundUp', () => {
    assert.strictEqual(roundUp(1n, 2n * 1024n * 1024n), 2097152n);
    assert.strictEqual(roundUp(2097152n, 2097152n), 2097152n);
    assert.strictEqual(roundUp(0n, 2097152n), 0n);
  });
});
