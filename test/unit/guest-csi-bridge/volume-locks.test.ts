import { describe, it } from 'mocha';
import { assert } from 'chai';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';
import { expectRejection, expectThrow } from '../../support/expect-error.js';

describe('VolumeLocks', () => {
  it('a second operation on a busy volume is CSI_OPERATION_PENDING (ABORTED), other volumes go on', async () => {
    const locks = new VolumeLocks();
    let finish!: () => void;
    const running = locks.run(
      'vol-1',
      'ControllerExpandVolume',
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    await expectRejection(
      locks.run('vol-1', 'ControllerExpandVolume', async () => 'second'),
      hasCode(
        'CSI_OPERATION_PENDING',
        /ControllerExpandVolume of the same volume is still running/,
      ),
    );
    assert.strictEqual(await locks.run('vol-2', 'DeleteVolume', async () => 'other'), 'other');
    finish();
    await running;
    assert.strictEqual(
      await locks.run('vol-1', 'ControllerExpandVolume', async () => 'after'),
      'after',
    );
    assert.strictEqual(locks.size, 0);
  });

  it('released when the operation fails, and a release runs once', async () => {
    const locks = new VolumeLocks();
    await expectRejection(
      locks.run('vol-1', 'x', () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    const release = locks.acquire('vol-1', 'y');
    expectThrow(() => locks.acquire('vol-1', 'z'), hasCode('CSI_OPERATION_PENDING'));
    release();
    release();
    assert.strictEqual(locks.size, 0);
  });
});
