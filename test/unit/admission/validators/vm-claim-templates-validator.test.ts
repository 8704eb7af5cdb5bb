import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { VirtualMachine } from '../../../../src/model/index.js';
import type { AdmissionRequest } from '../../../../src/admission/validators/validator.js';
import { createVmClaimTemplatesValidator } from '../../../../src/admission/validators/vm-claim-templates-validator.js';
import {
  admissionRequest,
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornImageClass,
  longhornVersion,
  longhornVolume,
  pvc,
  storageClass,
  templateEntry,
  vm,
  VM_KIND,
  VM_RESOURCE,
} from '../../../support/webhook/admission-objects.js';
import { memorySource, type ClusterState } from '../../../support/webhook/admission-caches.js';

const ROOT = 'vm1-disk-0-kq8zt';

function cluster(overrides: ClusterState = {}): ClusterState {
  return {
    pvcs: [pvc(ROOT)],
    storageClasses: [longhornImageClass(), storageClass('nfs-csi', 'nfs.csi.k8s.io')],
    vms: [vm('vm1')],
    kubeVirts: [kubeVirt()],
    settings: [harvesterSetting('')],
    longhornVolumes: [longhornVolume()],
    longhornEngines: [longhornEngine()],
    longhornSettings: [longhornVersion('v1.9.1')],
    ...overrides,
  };
}

function withTemplates(
  machine: VirtualMachine,
  templates: ReturnType<typeof templateEntry>[],
): VirtualMachine {
  return {
    ...machine,
    metadata: {
      ...machine.metadata,
      annotations: {
        ...machine.metadata?.annotations,
        'harvesterhci.io/volumeClaimTemplates': JSON.stringify(templates),
      },
    },
  };
}

function withAnnotation(machine: VirtualMachine, text: string): VirtualMachine {
  return {
    ...machine,
    metadata: {
      ...machine.metadata,
      annotations: {
        ...machine.metadata?.annotations,
        'harvesterhci.io/volumeClaimTemplates': text,
      },
    },
  };
}

function update(oldObject: VirtualMachine, object: VirtualMachine): AdmissionRequest {
  return admissionRequest({
    operation: 'UPDATE',
    resource: VM_RESOURCE,
    kind: VM_KIND,
    object,
    oldObject,
    name: 'vm1',
    namespace: 'default',
  });
}

const before = vm('vm1');
const grow = (size: string, className?: string) =>
  withTemplates(before, [templateEntry(ROOT, size, className)]);
/** The annotation with the storage request written as the raw JSON text `raw` (escapes kept as written). */
const rawGrow = (raw: string) =>
  withAnnotation(before, JSON.stringify([templateEntry(ROOT, '@@')]).replace('"@@"', raw));
const gateless = cluster({ kubeVirts: [kubeVirt({ gates: [] })] });
const ESCAPED = 'has an invalid storage request: the size ';

describe('vm validator (volumeClaimTemplates)', () => {
  interface Case {
    name: string;
    state?: ClusterState;
    request: AdmissionRequest;
    allowed: boolean;
    decision: string;
    code?: number;
    startsWith?: string;
    notSynced?: boolean;
  }
  const cases: Case[] = [
    {
      name: 'CREATE is allowed',
      request: admissionRequest({
        operation: 'CREATE',
        resource: VM_RESOURCE,
        kind: VM_KIND,
        object: before,
      }),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'annotation unchanged',
      request: update(before, { ...before, spec: { ...before.spec, runStrategy: 'Halted' } }),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'smaller size refused',
      request: update(before, grow('5Gi')),
      allowed: false,
      code: 422,
      decision: 'template-shrink',
      startsWith: "PVC_EXPAND: requests storage can't be less than previous value. ",
      notSynced: true,
    },
    {
      name: 'storage class change refused',
      request: update(before, grow('10Gi', 'nfs-csi')),
      allowed: false,
      code: 422,
      decision: 'template-storage-class-change',
      startsWith:
        "PVC_EXPAND: storageClassName of volume claim template vm1-disk-0-kq8zt of VM default/vm1 can't be changed",
      notSynced: true,
    },
    {
      name: 'new template entry (a new disk) is allowed',
      request: update(
        before,
        withTemplates(before, [
          templateEntry(ROOT, '10Gi'),
          templateEntry('vm1-disk-1-new', '5Gi'),
        ]),
      ),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'removed template entry is allowed',
      request: update(before, withTemplates(before, [])),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'larger size, Longhorn v1, running: allowed',
      request: update(before, grow('20Gi')),
      allowed: true,
      decision: 'allowed',
    },
    // Harvester decodes the annotation with Go's JSON, whose Quantity ignores white space around the text.
    {
      name: 'larger size written with spaces around it: judged as the size it is',
      request: update(before, grow(' 20Gi ')),
      allowed: true,
      decision: 'allowed',
    },
    // Go's Quantity.UnmarshalJSON takes the raw text: literal Go white space (U+00A0, U+0085) is
    // trimmed, escapes are not decoded, so Harvester cannot read "\t20Gi" or "\u0032\u0030Gi".
    ...['"\u00a020Gi"', '"20Gi\u0085"', '" \u3000 20Gi"'].map((raw): Case => ({
      name: `larger size with literal Go white space ${JSON.stringify(raw)}: judged`,
      state: gateless,
      request: update(before, rawGrow(raw)),
      allowed: false,
      code: 422,
      decision: 'gate-missing',
    })),
    ...[
      '"\\t20Gi"',
      '"20Gi\\n"',
      '"\\u0032\\u0030Gi"',
      '"\\u00a020Gi"',
      '"20\\u0047i"',
      '"\\"20Gi\\""',
    ].map((raw): Case => ({
      name: `a size written with JSON escapes (${raw}) is refused: Harvester reads the escape as written`,
      request: update(before, rawGrow(raw)),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith: `PVC_EXPAND: volume claim template vm1-disk-0-kq8zt of VM default/vm1 ${ESCAPED}${raw} contains a JSON escape sequence`,
      notSynced: true,
    })),
    {
      name: 'a size with a byte order mark (no space to Go) is refused, naming the character',
      request: update(before, rawGrow('"\ufeff20Gi"')),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith: `PVC_EXPAND: volume claim template vm1-disk-0-kq8zt of VM default/vm1 ${ESCAPED}"\ufeff20Gi" contains characters a Kubernetes quantity cannot hold (U+FEFF)`,
      notSynced: true,
    },
    // JSON numbers: their text, exactly (JSON.parse would make 10Gi of the first, Infinity of the second).
    {
      name: 'a JSON number a hair above 10Gi is a growth, as for Go',
      state: gateless,
      request: update(before, rawGrow('10737418240.000000000001')),
      allowed: false,
      code: 422,
      decision: 'gate-missing',
    },
    {
      name: 'a JSON number of 1e309 is a growth',
      state: gateless,
      request: update(before, rawGrow('1e309')),
      allowed: false,
      code: 422,
      decision: 'gate-missing',
    },
    {
      name: 'a JSON number equal to the size is no change',
      state: gateless,
      request: update(before, rawGrow('10737418240.0')),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'storage: null counts as zero: smaller',
      request: update(before, rawGrow('null')),
      allowed: false,
      code: 422,
      decision: 'template-shrink',
      notSynced: true,
    },
    // Duplicate keys: the last counts, as for JSON.parse and Go.
    {
      name: 'duplicate storage keys: the last counts',
      state: gateless,
      request: update(before, rawGrow('"5Gi", "storage": "20Gi"')),
      allowed: false,
      code: 422,
      decision: 'gate-missing',
    },
    {
      name: 'duplicate storage keys, the last smaller: a shrink',
      request: update(before, rawGrow('"20Gi", "storage": "5Gi"')),
      allowed: false,
      code: 422,
      decision: 'template-shrink',
      notSynced: true,
    },
    // apimachinery's cap (binary suffixes at 2^63-1) and nano round-up.
    {
      name: 'old 8Ei, new 9Ei: the same for Harvester (both 2^63-1)',
      request: update(grow('8Ei'), grow('9Ei')),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'old 9Ei, new 8Ei: not a shrink',
      request: update(grow('9Ei'), grow('8Ei')),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'old 1.0000000001, new 1.0000000002: both 1.000000001 (rounded up to nano), no change',
      request: update(grow('1.0000000001'), grow('1.0000000002')),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'larger size with spaces around it, gate missing: refused as any growth',
      state: cluster({ kubeVirts: [kubeVirt({ gates: [] })] }),
      request: update(before, grow(' 20Gi')),
      allowed: false,
      code: 422,
      decision: 'gate-missing',
    },
    {
      name: 'larger size, gate missing: refused by decideResize',
      state: cluster({ kubeVirts: [kubeVirt({ gates: [] })] }),
      request: update(before, grow('20Gi')),
      allowed: false,
      code: 422,
      decision: 'gate-missing',
      startsWith: 'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate',
    },
    {
      name: 'larger size on a stopped VM: offline',
      state: cluster({ kubeVirts: [kubeVirt({ gates: [] })] }),
      request: update(vm('vm1', { status: 'Stopped' }), {
        ...grow('20Gi'),
        status: { printableStatus: 'Stopped' },
      }),
      allowed: true,
      decision: 'allowed-offline',
    },
    {
      name: 'larger size but the PVC does not exist yet',
      state: cluster({ pvcs: [] }),
      request: update(before, grow('20Gi')),
      allowed: true,
      decision: 'not-template-change',
    },
    {
      name: 'larger than the template but not than the live PVC',
      state: cluster({ pvcs: [pvc(ROOT, { storage: '30Gi' })] }),
      request: update(before, grow('20Gi')),
      allowed: true,
      decision: 'not-template-change',
    },
    {
      name: 'larger size, Longhorn v2 on Longhorn v1.9.1',
      state: cluster({ longhornVolumes: [longhornVolume({ dataEngine: 'v2' })] }),
      request: update(before, grow('20Gi')),
      allowed: false,
      code: 422,
      decision: 'longhorn-v2-version',
    },
    {
      name: 'caches not synced while growing',
      request: update(before, grow('20Gi')),
      allowed: false,
      code: 500,
      decision: 'cache-not-synced',
      notSynced: true,
    },
    {
      name: "a new size that is not a quantity is the user's mistake: 422, not an internal error",
      request: update(before, grow('20 GB')),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith:
        'PVC_EXPAND: volume claim template vm1-disk-0-kq8zt of VM default/vm1 has an invalid storage request: the size "20 GB" contains characters a Kubernetes quantity cannot hold (U+0020 (space))',
      notSynced: true,
    },
    {
      name: 'a new size that is not a quantity, in plain characters',
      request: update(before, grow('20GB')),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith:
        'PVC_EXPAND: volume claim template vm1-disk-0-kq8zt of VM default/vm1 has an invalid storage request: invalid Kubernetes quantity "20GB"',
      notSynced: true,
    },
    {
      name: 'a new size that is an object: 422 naming the type',
      request: update(
        before,
        withTemplates(before, [
          {
            ...templateEntry(ROOT, '10Gi'),
            spec: {
              ...templateEntry(ROOT, '10Gi').spec,
              resources: { requests: { storage: { value: 20 } as unknown as string } },
            },
          },
        ]),
      ),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith:
        'PVC_EXPAND: volume claim template vm1-disk-0-kq8zt of VM default/vm1 has an invalid storage request: the size {"value":20} is an object, not a quantity; write it as a string such as "20Gi"',
      notSynced: true,
    },
    // An invalid size already stored is not held against a valid new one: the live PVC decides.
    {
      name: 'an invalid stored size, a valid new one larger than the live PVC: judged',
      request: update(grow('lots'), grow('20Gi')),
      allowed: true,
      decision: 'allowed',
    },
    {
      name: 'an invalid stored size, a valid new one larger than the live PVC, gate missing: refused',
      state: cluster({ kubeVirts: [kubeVirt({ gates: [] })] }),
      request: update(grow('lots'), grow('20Gi')),
      allowed: false,
      code: 422,
      decision: 'gate-missing',
    },
    {
      name: 'an invalid stored size, a valid new one equal to the live PVC',
      request: update(grow('lots'), grow('10Gi')),
      allowed: true,
      decision: 'not-template-change',
    },
    // Harvester's VM validator unmarshals the new annotation and refuses what it cannot read.
    {
      name: 'a new annotation that is not JSON',
      request: update(before, withAnnotation(before, '[{"metadata":')),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith:
        'PVC_EXPAND: the harvesterhci.io/volumeClaimTemplates annotation of VM default/vm1 cannot be read: it is not valid JSON',
      notSynced: true,
    },
    {
      name: 'a new annotation that is a JSON object, not a list',
      request: update(before, withAnnotation(before, '{"a":1}')),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith:
        'PVC_EXPAND: the harvesterhci.io/volumeClaimTemplates annotation of VM default/vm1 cannot be read: it is not a JSON list',
      notSynced: true,
    },
    {
      name: 'a new entry without a name',
      request: update(
        before,
        withAnnotation(before, JSON.stringify([{ ...templateEntry(ROOT, '20Gi'), metadata: {} }])),
      ),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith:
        'PVC_EXPAND: the harvesterhci.io/volumeClaimTemplates annotation of VM default/vm1 cannot be read: entry 0 has no metadata.name',
      notSynced: true,
    },
    ...(
      [
        ['spec', { spec: 'oops' }, 'has a spec that is not an object'],
        ['metadata', { metadata: ['x'] }, 'has a metadata that is not an object'],
        [
          'spec.resources',
          { spec: { ...templateEntry(ROOT, '20Gi').spec, resources: 'x' } },
          'has a spec.resources that is not an object',
        ],
        [
          'spec.resources.requests',
          { spec: { ...templateEntry(ROOT, '20Gi').spec, resources: { requests: ['20Gi'] } } },
          'has a spec.resources.requests that is not an object',
        ],
        [
          'spec.storageClassName',
          { spec: { ...templateEntry(ROOT, '20Gi').spec, storageClassName: 7 } },
          'has a spec.storageClassName that is not a string',
        ],
      ] as const
    ).map(([what, change, why]): Case => ({
      // Go's json.Unmarshal into a PVC rejects these: unreadable, not a shrink to zero.
      name: `a new entry whose ${what} has the wrong type`,
      request: update(
        before,
        withAnnotation(before, JSON.stringify([{ ...templateEntry(ROOT, '20Gi'), ...change }])),
      ),
      allowed: false,
      code: 422,
      decision: 'template-invalid',
      startsWith: `PVC_EXPAND: the harvesterhci.io/volumeClaimTemplates annotation of VM default/vm1 cannot be read: entry 0 ${why}`,
      notSynced: true,
    })),
    {
      name: 'storage class changed to "" (set empty): the message quotes it',
      request: update(before, grow('10Gi', '')),
      allowed: false,
      code: 422,
      decision: 'template-storage-class-change',
      startsWith:
        'PVC_EXPAND: storageClassName of volume claim template vm1-disk-0-kq8zt of VM default/vm1 can\'t be changed (from longhorn-image-7r2k9 to ""). Keep longhorn-image-7r2k9;',
      notSynced: true,
    },
    {
      name: 'a new annotation "null" lists nothing (Go reads it so)',
      request: update(before, withAnnotation(before, 'null')),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'a malformed stored annotation is not held against a valid new one',
      request: update(withAnnotation(before, 'not json'), grow('10Gi')),
      allowed: true,
      decision: 'not-template-change',
      notSynced: true,
    },
    {
      name: 'a storage request removed from the template counts as zero: smaller',
      request: update(
        before,
        withTemplates(before, [
          {
            ...templateEntry(ROOT, '10Gi'),
            spec: { ...templateEntry(ROOT, '10Gi').spec, resources: {} },
          },
        ]),
      ),
      allowed: false,
      code: 422,
      decision: 'template-shrink',
      notSynced: true,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { caches, source, options } = memorySource(c.state ?? cluster());
      if (c.notSynced) caches.pvcs.setSynced(false);
      const verdict = await createVmClaimTemplatesValidator({ source, options }).validate(
        c.request,
      );
      assert.strictEqual(verdict.allowed, c.allowed, verdict.message);
      assert.strictEqual(verdict.decision, c.decision);
      if (c.code) assert.strictEqual(verdict.code, c.code);
      if (c.startsWith) assert.ok(verdict.message?.startsWith(c.startsWith), verdict.message);
    });
  }

  it('a larger template while the VM cache does not follow the API server (its list or watch failed): 500 naming it, not judged from it', async () => {
    const { caches, source, options } = memorySource(
      cluster({ vms: [vm('vm1', { status: 'Stopped' })] }),
    );
    caches.vms.setOutOfSync({ since: 0, why: 'watch closed immediately without events' });
    const verdict = await createVmClaimTemplatesValidator({ source, options }).validate(
      update(before, grow('20Gi')),
    );
    assert.isFalse(verdict.allowed);
    assert.strictEqual(verdict.code, 500);
    assert.strictEqual(verdict.decision, 'cache-out-of-sync');
    assert.match(
      verdict.message ?? '',
      /^internal error: voe's cache of virtualmachines\.kubevirt\.io \(since 1970-01-01T00:00:00\.000Z: watch closed immediately without events\) does not follow the API server now/,
    );
  });

  it('judges the VM as it will be stored (the request object, not the cached VM)', async () => {
    // The cache still holds vm1 hotplugging nothing; the new VM object is what matters for the running state.
    const { source, options } = memorySource(
      cluster({ kubeVirts: [kubeVirt({ gates: [] })], vms: [vm('vm1', { status: 'Stopped' })] }),
    );
    const verdict = await createVmClaimTemplatesValidator({ source, options }).validate(
      update(before, grow('20Gi')),
    );
    assert.strictEqual(verdict.decision, 'gate-missing');
  });

  it('has its name and path', () => {
    const validator = createVmClaimTemplatesValidator(memorySource(cluster()));
    assert.strictEqual(validator.name, 'vm');
    assert.strictEqual(validator.path, '/validate/vm');
  });
});
