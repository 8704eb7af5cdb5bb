import { describe, it } from 'mocha';
import { assert } from 'chai';
import { hostPvcName, isHostPvcName } from '../../../src/guest-csi-bridge/csi/host-pvc-name.js';

describe('hostPvcName', () => {
  it("keeps external-provisioner's names (pvc-<uid>), as Harvester's driver", () => {
    const name = 'pvc-0b6f3c1e-5f0e-4d55-9f8e-2c1b1a7e1e11';
    assert.strictEqual(hostPvcName(name), name);
  });

  const derived: string[] = [
    'sanity-controller-create-twice-1A2B3C4D-5E6F7A8B',
    'sanity-max-attach-limit-vol+1',
    `sanity-controller-create-maxlen-1A2B3C4D-5E6F7A8B${'a'.repeat(80)}`,
    'a.b',
    '-leading',
    '___',
    '',
    'x'.repeat(64),
  ];
  for (const name of derived) {
    it(`derives a DNS label for ${JSON.stringify(name.slice(0, 40))}`, () => {
      const id = hostPvcName(name);
      assert.isTrue(isHostPvcName(id), id);
      assert.isAtMost(id.length, 63);
      assert.strictEqual(hostPvcName(name), id, 'the same every time');
    });
  }

  it('different names get different ids, also when they differ only in case', () => {
    assert.notStrictEqual(hostPvcName('Vol-A'), hostPvcName('vol-A'));
    assert.notStrictEqual(hostPvcName('vol+1'), hostPvcName('vol+2'));
  });

  it('isHostPvcName: DNS-1123 labels only', () => {
    assert.isTrue(isHostPvcName('fake-vol-id'));
    assert.isFalse(isHostPvcName('Fake'));
    assert.isFalse(isHostPvcName('a'.repeat(64)));
    assert.isFalse(isHostPvcName('a/b'));
  });
});
