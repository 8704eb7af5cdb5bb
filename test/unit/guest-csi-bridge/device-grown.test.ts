import { describe, it } from 'mocha';
import { assert } from 'chai';
import { deviceGrown } from '../../../src/guest-csi-bridge/node/device-grown.js';

const GiB = 1024 * 1024 * 1024;

describe('deviceGrown', () => {
  const filesystem = {
    requiredBytes: 4 * GiB,
    hostVolumeMode: 'Filesystem' as const,
    baselineBytes: 2 * GiB,
  };

  it('the size asked for ends the wait in every mode', () => {
    for (const hostVolumeMode of ['Block', 'Filesystem', undefined] as const)
      assert.isTrue(deviceGrown({ ...filesystem, hostVolumeMode }, undefined, 4 * GiB));
  });

  it('Filesystem mode: grown above the baseline and stable across two reads', () => {
    assert.isFalse(deviceGrown(filesystem, undefined, 3 * GiB), 'first read');
    assert.isFalse(deviceGrown(filesystem, 2 * GiB, 3 * GiB), 'still moving');
    assert.isTrue(deviceGrown(filesystem, 3 * GiB, 3 * GiB));
    assert.isFalse(deviceGrown(filesystem, 2 * GiB + 4096, 2 * GiB + 4096), 'rounding only');
  });

  it('Block mode or unknown: below the size asked for never ends the wait', () => {
    for (const hostVolumeMode of ['Block', undefined] as const)
      assert.isFalse(deviceGrown({ ...filesystem, hostVolumeMode }, 3 * GiB, 3 * GiB));
  });
});
