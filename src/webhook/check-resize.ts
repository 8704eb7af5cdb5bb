import type { AdmissionOptions } from './admission-options.js';
import { assembleResizeSnapshot } from './assemble-resize-snapshot.js';
import { createCacheSnapshotSource, type AdmissionCaches } from './cache-snapshot-source.js';
import { decideResize } from './decide-resize.js';
import type { PersistentVolumeClaim } from './kube-objects.js';
import type { ResizeDecision } from './resize-snapshot.js';

export interface CheckResult extends ResizeDecision {
  pvc: string;
  from: string | undefined;
  to: string;
}

/**
 * What the webhook would decide if the PVC's storage request became `size`: the same
 * snapshot assembly and decideResize over caches (here filled by list calls).
 */
export function checkResize(pvc: PersistentVolumeClaim, size: string, caches: AdmissionCaches, options: AdmissionOptions): CheckResult {
  const requests = pvc.spec?.resources?.requests;
  const grown: PersistentVolumeClaim = {
    ...pvc,
    spec: { ...pvc.spec, resources: { ...pvc.spec?.resources, requests: { ...requests, storage: size } } },
  };
  const source = createCacheSnapshotSource(caches, options);
  const decision = decideResize(assembleResizeSnapshot(source, pvc, grown, options), options);
  const from = requests?.['storage'];
  return {
    pvc: `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`,
    from: from === undefined ? undefined : String(from),
    to: size,
    ...decision,
  };
}
