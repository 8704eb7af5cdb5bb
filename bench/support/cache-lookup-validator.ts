/**
 * Stand-in for the real PVC resize validator until it lands: it performs the same cache lookups
 * (PVC -> VMs index, VM status, KubeVirt feature gates, hotplug, provisioner, StorageClass, Setting)
 * over in-memory Maps of the fixture, then a decision over the gathered snapshot. To measure the real
 * decision, replace `decide` below with the admission helper's decideResize (one line).
 */
import type { AdmissionVerdict, Validator } from '../../src/webhook/index.js';
import type { Fixture, Obj } from './cluster-fixtures.js';

export interface ResizeSnapshot {
  pvc: Obj; oldPvc: Obj; vms: Obj[]; kubevirt: Obj | undefined; storageClass: Obj | undefined; onlineExpandable: Record<string, boolean>;
}

interface Caches {
  vmsByClaim: Map<string, Obj[]>;
  storageClasses: Map<string, Obj>;
  kubevirt: Obj | undefined;
  onlineExpandable: Record<string, boolean>;
}

const UNITS: Record<string, number> = { '': 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
function bytes(quantity: unknown): number {
  const match = /^(\d+(?:\.\d+)?)([KMGT]i?|k)?$/.exec(String(quantity));
  return match ? Number(match[1]) * (UNITS[match[2] ?? ''] ?? NaN) : NaN;
}
function storageOf(pvc: Obj): number {
  return bytes((pvc['spec'] as { resources?: { requests?: { storage?: string } } } | undefined)?.resources?.requests?.storage);
}

/** The index a real informer would keep: claim key (ns/name) -> VMs, from volumes and the volumeClaimTemplates annotation. */
export function indexCaches(fixture: Fixture): Caches {
  const vmsByClaim = new Map<string, Obj[]>();
  for (const vm of fixture.vms) {
    const meta = vm['metadata'] as { namespace: string; annotations?: Record<string, string> };
    const claims = new Set<string>();
    const volumes = ((vm['spec'] as { template?: { spec?: { volumes?: Array<{ persistentVolumeClaim?: { claimName?: string } }> } } }).template?.spec?.volumes) ?? [];
    for (const v of volumes) if (v.persistentVolumeClaim?.claimName) claims.add(v.persistentVolumeClaim.claimName);
    const templates = meta.annotations?.['harvesterhci.io/volumeClaimTemplates'];
    if (templates) for (const t of JSON.parse(templates) as Array<{ metadata?: { name?: string } }>) if (t.metadata?.name) claims.add(t.metadata.name);
    for (const claim of claims) {
      const key = `${meta.namespace}/${claim}`;
      vmsByClaim.set(key, [...(vmsByClaim.get(key) ?? []), vm]);
    }
  }
  const setting = fixture.setting as { default?: string; value?: string };
  return {
    vmsByClaim,
    storageClasses: new Map(fixture.storageClasses.map((sc) => [(sc['metadata'] as { name: string }).name, sc])),
    kubevirt: fixture.kubevirt,
    onlineExpandable: { ...(JSON.parse(setting.default ?? '{}') as Record<string, boolean>), ...(JSON.parse(setting.value || '{}') as Record<string, boolean>) },
  };
}

/** Harvester's order (reference/harvester.md section 1), over the snapshot. */
export function benchDecideResize(s: ResizeSnapshot): AdmissionVerdict {
  if (!(storageOf(s.pvc) > storageOf(s.oldPvc))) return { allowed: true, decision: 'not-resize' };
  const running = s.vms.filter((vm) => (vm['status'] as { printableStatus?: string } | undefined)?.printableStatus !== 'Stopped');
  if (running.length === 0) return { allowed: true, decision: 'offline' };
  const gates = (s.kubevirt?.['spec'] as { configuration?: { developerConfiguration?: { featureGates?: string[] } } } | undefined)?.configuration?.developerConfiguration?.featureGates ?? [];
  if (!gates.includes('ExpandDisks')) return { allowed: false, code: 422, reason: 'Invalid', decision: 'gate-missing', message: 'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate' };
  const meta = s.pvc['metadata'] as { name: string; namespace: string; annotations?: Record<string, string> };
  const spec = s.pvc['spec'] as { volumeMode?: string };
  if (spec.volumeMode === 'Filesystem') {
    const hotplugged = s.vms.some((vm) => ((vm['spec'] as { template?: { spec?: { volumes?: Array<{ persistentVolumeClaim?: { claimName?: string; hotpluggable?: boolean } }> } } }).template?.spec?.volumes ?? [])
      .some((v) => v.persistentVolumeClaim?.claimName === meta.name && v.persistentVolumeClaim.hotpluggable === true));
    if (hotplugged) return { allowed: false, code: 422, reason: 'Invalid', decision: 'hotplug-filesystem', message: `PVC_EXPAND: Expansion of hotplugged PVC '${meta.namespace}/${meta.name}' in filesystem mode is not supported` };
  }
  const provisioner = meta.annotations?.['volume.beta.kubernetes.io/storage-provisioner'] ?? meta.annotations?.['volume.kubernetes.io/storage-provisioner'] ?? (s.storageClass?.['provisioner'] as string | undefined) ?? '';
  if (s.onlineExpandable[provisioner] !== true) {
    return { allowed: false, code: 422, reason: 'Invalid', decision: 'provisioner-not-validated', message: `PVC_EXPAND: pvc ${meta.namespace}/${meta.name} is not online expandable with its provider` };
  }
  return { allowed: true, decision: 'online-expand' };
}

// Swap in the real decision here once it lands: `const decide = decideResize;`
const decide: (snapshot: ResizeSnapshot) => AdmissionVerdict = benchDecideResize;

export function createCacheLookupValidator(fixture: Fixture): Validator {
  const caches = indexCaches(fixture);
  return {
    name: 'pvc-resize',
    path: '/validate/pvc-resize',
    validate(request) {
      const pvc = request.object ?? {};
      const oldPvc = request.oldObject ?? {};
      const scName = (pvc['spec'] as { storageClassName?: string } | undefined)?.storageClassName ?? '';
      return decide({
        pvc, oldPvc,
        vms: caches.vmsByClaim.get(`${request.namespace}/${request.name}`) ?? [],
        kubevirt: caches.kubevirt,
        storageClass: caches.storageClasses.get(scName),
        onlineExpandable: caches.onlineExpandable,
      });
    },
  };
}
