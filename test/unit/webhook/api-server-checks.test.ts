import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiServerFindings, type PersistentVolumeClaim } from '../../../src/webhook/index.js';
import { pvc, storageClass } from '../../support/admission-objects.js';

const ROOT = 'vm1-disk-0-kq8zt';
const longhorn = storageClass('longhorn-image-7r2k9', 'driver.longhorn.io');

function withStatus(claim: PersistentVolumeClaim, status: PersistentVolumeClaim['status']): PersistentVolumeClaim {
  return { ...claim, status };
}

describe('apiServerFindings (what Kubernetes checks before the webhook)', () => {
  interface Case { name: string; claim: PersistentVolumeClaim; size: string; cls?: typeof longhorn | null; outcomes: string[]; includes?: string }
  const cases: Case[] = [
    { name: 'bound, expandable class, growing: pass', claim: pvc(ROOT), size: '20Gi', outcomes: ['pass/allowed'] },
    { name: 'same size: nothing changes', claim: pvc(ROOT), size: '10240Mi', outcomes: ['pass/not-resize'], includes: 'changes nothing' },
    {
      name: 'smaller than status.capacity: refused', claim: pvc(ROOT), size: '5Gi', outcomes: ['refuse/api-below-capacity'],
      includes: 'can not be less than status.capacity (10Gi)',
    },
    {
      name: 'smaller than the request but not below capacity: only a recovery', claim: withStatus(pvc(ROOT, { storage: '30Gi' }), { phase: 'Bound', capacity: { storage: '10Gi' } }),
      size: '20Gi', outcomes: ['pass/not-resize'], includes: 'recover from a failed expansion',
    },
    {
      name: 'not bound', claim: withStatus(pvc(ROOT), { phase: 'Pending' }), size: '20Gi', outcomes: ['refuse/api-not-bound'],
      includes: 'except resources.requests for bound claims, and this one is Pending',
    },
    {
      name: 'class without allowVolumeExpansion', claim: pvc(ROOT), size: '20Gi', cls: { ...longhorn, allowVolumeExpansion: false },
      outcomes: ['refuse/api-expansion-not-allowed'], includes: 'Set allowVolumeExpansion: true on StorageClass longhorn-image-7r2k9',
    },
    { name: 'class missing', claim: pvc(ROOT), size: '20Gi', cls: null, outcomes: ['refuse/api-expansion-not-allowed'], includes: 'was not found' },
    {
      name: 'pending and no class: validation answers first', claim: withStatus({ ...pvc(ROOT), spec: { ...pvc(ROOT).spec, storageClassName: '' } }, { phase: 'Pending' }),
      size: '20Gi', cls: null, outcomes: ['refuse/api-not-bound'],
    },
    { name: 'no class', claim: { ...pvc(ROOT), spec: { ...pvc(ROOT).spec, storageClassName: '' } }, size: '20Gi', cls: null, outcomes: ['refuse/api-expansion-not-allowed'], includes: 'names no StorageClass' },
    { name: 'a smaller request on an unbound claim', claim: withStatus(pvc(ROOT), { phase: 'Pending' }), size: '5Gi', outcomes: ['refuse/api-not-bound'] },
    { name: 'zero', claim: pvc(ROOT), size: '0', outcomes: ['refuse/api-invalid-size'], includes: 'greater than zero, got 0' },
    { name: 'negative', claim: pvc(ROOT), size: '-1Gi', outcomes: ['refuse/api-invalid-size'] },
    { name: 'no request yet: judged as growing', claim: { ...pvc(ROOT), spec: { ...pvc(ROOT).spec, resources: {} } }, size: '20Gi', outcomes: ['pass/allowed'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const findings = apiServerFindings(c.claim, c.size, c.cls === undefined ? longhorn : c.cls);
      assert.deepEqual(findings.map((f) => `${f.outcome}/${f.decision}`), c.outcomes);
      assert.ok(findings.every((f) => f.check === 'api-server'));
      if (c.includes) assert.ok(findings.some((f) => f.message.includes(c.includes!)), findings.map((f) => f.message).join(' | '));
    });
  }
});
