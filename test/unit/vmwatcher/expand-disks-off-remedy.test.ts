import { assert } from 'chai';
import { expandDisksOffRemedy } from '../../../src/vmwatcher/expand-disks-off-remedy.js';

describe('expandDisksOffRemedy', () => {
  const table: Array<{
    name: string;
    options: Parameters<typeof expandDisksOffRemedy>[0];
    says: string[];
    never: string[];
  }> = [
    {
      name: 'Filesystem mode on v1.8.1: a restart does not grow disk.img',
      options: { volumeMode: 'Filesystem', version: 'v1.8.1', disabledOnly: false },
      says: ['voe enable', 'does not help', 'KubeVirt v1.8.1', 'disk.img'],
      never: ['QEMU opens'],
    },
    {
      name: 'Filesystem mode, version unknown',
      options: { volumeMode: undefined, version: undefined, disabledOnly: false },
      says: ['does not help', 'KubeVirt before v1.9'],
      never: ['QEMU opens'],
    },
    {
      name: 'Block mode: the restart grows it',
      options: { volumeMode: 'Block', version: 'v1.5.2', disabledOnly: false },
      says: ['voe enable', 'restart the VM', 'QEMU opens the grown block device'],
      never: ['does not help'],
    },
    {
      name: 'disabled by the administrator: remove it first',
      options: { volumeMode: 'Block', version: 'v1.8.0', disabledOnly: true },
      says: ['Remove ExpandDisks from', 'disabledFeatureGates'],
      never: [],
    },
  ];
  for (const row of table)
    it(row.name, () => {
      const message = expandDisksOffRemedy(row.options);
      for (const text of row.says) assert.include(message, text);
      for (const text of row.never) assert.notInclude(message, text);
    });
});
