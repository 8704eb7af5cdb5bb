import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  decideExpansion,
  type ExpansionDecision,
  type HostFacts,
} from '../../../src/guest-csi-bridge/controller/decide-expansion.js';
import { readExpandSetting } from '../../../src/guest-csi-bridge/controller/expand-setting.js';
import type { HostPvc } from '../../../src/guest-csi-bridge/host/host-objects.js';

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;

/** A bound host PVC as the API server stores it. */
function pvc(
  request: string,
  capacity: string,
  extra: {
    phase?: string;
    deleting?: boolean;
    annotations?: Record<string, string>;
    infeasible?: string;
    allocated?: string;
    /** The ControllerResizeError condition's message ("no space" unless told). */
    message?: string;
  } = {},
): HostPvc {
  return {
    metadata: {
      name: 'pvc-1',
      namespace: 'guests',
      resourceVersion: '7',
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      accessModes: ['ReadWriteMany'],
      volumeMode: 'Block',
      storageClassName: 'longhorn',
      resources: { requests: { storage: request } },
    },
    status: {
      phase: extra.phase ?? 'Bound',
      capacity: { storage: capacity },
      ...(extra.infeasible
        ? {
            allocatedResourceStatuses: { storage: extra.infeasible },
            ...(extra.allocated ? { allocatedResources: { storage: extra.allocated } } : {}),
            conditions: [
              {
                type: 'ControllerResizeError',
                status: 'True',
                message: extra.message ?? 'no space',
              },
            ],
          }
        : {}),
    },
  };
}

const longhornClass = { metadata: { name: 'longhorn' }, provisioner: 'driver.longhorn.io' };
const nfsClass = { metadata: { name: 'nfs' }, provisioner: 'nfs.csi.k8s.io' };
const setting = (value: string) =>
  readExpandSetting({
    metadata: { name: 'csi-online-expand-validation' },
    default: '{"driver.longhorn.io":true}',
    value,
  });
const online = (facts: Partial<HostFacts> = {}): HostFacts => ({
  usedBy: ['hp-volume-abcde'],
  setting: setting(''),
  storageClass: longhornClass,
  ...facts,
});
const offline = (facts: Partial<HostFacts> = {}): HostFacts => online({ usedBy: [], ...facts });

interface Row {
  name: string;
  pvc: HostPvc | undefined;
  required: bigint;
  limit?: bigint;
  host?: HostFacts;
  expect: ExpansionDecision['action'];
  code?: string;
  requestBytes?: bigint;
  message?: RegExp;
}

const rows: Row[] = [
  {
    name: 'no host PVC',
    pvc: undefined,
    required: 20n * Gi,
    expect: 'refuse',
    code: 'CSI_VOLUME_NOT_FOUND',
  },
  {
    name: 'host PVC being deleted',
    pvc: pvc('10Gi', '10Gi', { deleting: true }),
    required: 20n * Gi,
    expect: 'refuse',
    code: 'CSI_VOLUME_NOT_FOUND',
  },
  {
    name: 'host PVC Pending',
    pvc: pvc('10Gi', '10Gi', { phase: 'Pending' }),
    required: 20n * Gi,
    expect: 'refuse',
    code: 'CSI_HOST_PVC_NOT_BOUND',
  },
  {
    name: 'capacity already there: done, host facts not needed',
    pvc: pvc('20Gi', '20Gi'),
    required: 20n * Gi,
    expect: 'done',
  },
  {
    name: 'a smaller size (shrink) is done: the volume has at least that',
    pvc: pvc('20Gi', '20Gi'),
    required: 10n * Gi,
    expect: 'done',
  },
  {
    name: 'inside the host rounding: 1 MiB more is covered by the 2 MiB request',
    pvc: pvc(`${10n * Gi + 2n * Mi}`, `${10n * Gi + 2n * Mi}`),
    required: 10n * Gi + Mi,
    expect: 'done',
  },
  {
    name: 'must grow: host facts asked for',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    expect: 'lookup',
  },
  {
    name: 'validated provider, online: patch to the rounded size',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi + 1n,
    host: online(),
    expect: 'patch',
    requestBytes: 20n * Gi + 2n * Mi,
  },
  {
    name: 'aligned size is not rounded further',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online(),
    expect: 'patch',
    requestBytes: 20n * Gi,
  },
  {
    name: 'request already at the size: wait, no second patch',
    pvc: pvc('20Gi', '10Gi'),
    required: 20n * Gi,
    host: online(),
    expect: 'wait',
  },
  {
    name: 'request above the size (host rounding): wait',
    pvc: pvc(`${20n * Gi + 2n * Mi}`, '10Gi'),
    required: 20n * Gi + Mi,
    host: online(),
    expect: 'wait',
  },
  {
    name: 'unvalidated provider, online: refused as infeasible',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online({ storageClass: nfsClass }),
    expect: 'refuse',
    code: 'CSI_PROVIDER_NOT_VALIDATED',
    message:
      /provisioner nfs\.csi\.k8s\.io is not validated .* Setting csi-online-expand-validation/,
  },
  {
    name: 'unvalidated provider, offline (no host pod uses it): patch',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: offline({ storageClass: nfsClass }),
    expect: 'patch',
    requestBytes: 20n * Gi,
  },
  {
    name: 'provider validated by the Setting value',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online({ storageClass: nfsClass, setting: setting('{"nfs.csi.k8s.io":true}') }),
    expect: 'patch',
    requestBytes: 20n * Gi,
  },
  {
    name: 'the Setting value disables Longhorn',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online({ setting: setting('{"driver.longhorn.io":false}') }),
    expect: 'refuse',
    code: 'CSI_PROVIDER_NOT_VALIDATED',
  },
  {
    name: 'a validated annotation does not cover an unvalidated StorageClass',
    pvc: pvc('10Gi', '10Gi', {
      annotations: { 'volume.kubernetes.io/storage-provisioner': 'driver.longhorn.io' },
    }),
    required: 20n * Gi,
    host: online({ storageClass: nfsClass }),
    expect: 'refuse',
    code: 'CSI_PROVIDER_NOT_VALIDATED',
  },
  {
    name: 'an unvalidated annotation is judged too',
    pvc: pvc('10Gi', '10Gi', {
      annotations: { 'volume.beta.kubernetes.io/storage-provisioner': 'nfs.csi.k8s.io' },
    }),
    required: 20n * Gi,
    host: online(),
    expect: 'refuse',
    code: 'CSI_PROVIDER_NOT_VALIDATED',
  },
  {
    name: 'Setting missing: Harvester default (Longhorn) validates Longhorn',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online({ setting: readExpandSetting(undefined) }),
    expect: 'patch',
    requestBytes: 20n * Gi,
  },
  {
    name: 'Setting missing: other providers are not validated',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online({ setting: readExpandSetting(undefined), storageClass: nfsClass }),
    expect: 'refuse',
    code: 'CSI_PROVIDER_NOT_VALIDATED',
    message: /not found: Harvester's default/,
  },
  {
    name: 'Setting invalid, online: internal, not infeasible',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online({ setting: setting('{not json') }),
    expect: 'refuse',
    code: 'CSI_SETTING_INVALID',
  },
  {
    name: 'Setting invalid, offline: not read',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: offline({ setting: setting('{not json') }),
    expect: 'patch',
    requestBytes: 20n * Gi,
  },
  {
    name: 'provisioner unknown, online',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    host: online({ storageClass: undefined }),
    expect: 'refuse',
    code: 'CSI_HOST_REQUEST_FAILED',
  },
  {
    name: 'host resizer marked the request infeasible',
    pvc: pvc('20Gi', '10Gi', { infeasible: 'ControllerResizeInfeasible' }),
    required: 20n * Gi,
    expect: 'refuse',
    code: 'CSI_HOST_RESIZE_INFEASIBLE',
    message: /ControllerResizeInfeasible: no space/,
  },
  {
    name: 'older API spelling of infeasible, its message an infeasible code',
    pvc: pvc('20Gi', '10Gi', {
      infeasible: 'ControllerResizeFailed',
      message: 'rpc error: code = OutOfRange desc = no space',
    }),
    required: 20n * Gi,
    expect: 'refuse',
    code: 'CSI_HOST_RESIZE_INFEASIBLE',
  },
  {
    name: 'older API spelling of a failure that is not infeasible (any final error): waited on',
    pvc: pvc('20Gi', '10Gi', {
      infeasible: 'ControllerResizeFailed',
      message: 'rpc error: code = Internal desc = backend busy',
    }),
    required: 20n * Gi,
    expect: 'lookup',
  },
  {
    name: 'the guest lowered its request below the size the host refused: the host request is lowered to it',
    pvc: pvc('20Gi', '10Gi', { infeasible: 'ControllerResizeInfeasible', allocated: '20Gi' }),
    required: 15n * Gi,
    host: online(),
    expect: 'patch',
    requestBytes: 15n * Gi,
  },
  {
    name: 'after the host request was lowered, the mark about the larger size is stale: wait',
    pvc: pvc('15Gi', '10Gi', { infeasible: 'ControllerResizeInfeasible', allocated: '20Gi' }),
    required: 15n * Gi,
    host: online(),
    expect: 'wait',
  },
  {
    name: 'infeasible at a smaller request: a larger one is tried',
    pvc: pvc('15Gi', '10Gi', { infeasible: 'ControllerResizeInfeasible' }),
    required: 20n * Gi,
    host: online(),
    expect: 'patch',
    requestBytes: 20n * Gi,
  },
  {
    name: 'a stale infeasible mark (for a smaller allocated size) while the request already covers the size: wait',
    pvc: pvc('20Gi', '10Gi', { infeasible: 'ControllerResizeInfeasible', allocated: '15Gi' }),
    required: 20n * Gi,
    host: online(),
    expect: 'wait',
  },
  {
    name: 'an infeasible mark for the allocated size that covers the request: refused',
    pvc: pvc('20Gi', '10Gi', { infeasible: 'ControllerResizeInfeasible', allocated: '20Gi' }),
    required: 20n * Gi,
    expect: 'refuse',
    code: 'CSI_HOST_RESIZE_INFEASIBLE',
  },
  {
    name: 'rounding would pass the limit: the exact size is asked for',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi + 1n,
    limit: 20n * Gi + 1n,
    host: online(),
    expect: 'patch',
    requestBytes: 20n * Gi + 1n,
  },
  {
    name: 'above the limit',
    pvc: pvc('10Gi', '10Gi'),
    required: 20n * Gi,
    limit: 15n * Gi,
    host: online(),
    expect: 'refuse',
    code: 'CSI_CAPACITY_OUT_OF_RANGE',
  },
];

describe('decideExpansion', () => {
  for (const row of rows) {
    it(row.name, () => {
      const decision = decideExpansion({
        pvcKey: 'guests/pvc-1',
        pvc: row.pvc,
        requiredBytes: row.required,
        limitBytes: row.limit ?? 0n,
        roundingBytes: 2n * Mi,
        settingName: 'csi-online-expand-validation',
        host: row.host,
      });
      assert.strictEqual(
        decision.action,
        row.expect,
        JSON.stringify(decision, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
      );
      if (decision.action === 'refuse') {
        assert.strictEqual(decision.code, row.code);
        if (row.message) assert.match(decision.message, row.message);
      }
      if (decision.action === 'patch') assert.strictEqual(decision.requestBytes, row.requestBytes);
    });
  }

  it('done answers the host capacity', () => {
    const decision = decideExpansion({
      pvcKey: 'guests/pvc-1',
      pvc: pvc('21Gi', '21Gi'),
      requiredBytes: 20n * Gi,
      limitBytes: 0n,
      roundingBytes: 2n * Mi,
      settingName: 'csi-online-expand-validation',
      host: undefined,
    });
    assert.deepStrictEqual(decision, { action: 'done', capacityBytes: 21n * Gi });
  });
});
