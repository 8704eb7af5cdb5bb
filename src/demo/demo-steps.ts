import { SCENARIO } from './expansion-scenario.js';
import { KINDS, type CustomKind } from './staged-cluster.js';

export type DemoOutcome = 'admitted' | 'refused';

/** A change an operator (or a peer such as Longhorn or KubeVirt) makes before a resize is tried again. */
export interface DemoChange {
  /** What changed, for the report. */
  describe: string;
  kind: CustomKind;
  name: string;
  namespace?: string;
  /** A JSON merge patch of the main resource, or of the status subresource when `status` is set. */
  patch: Record<string, unknown>;
  status?: boolean;
}

/**
 * The decision labels with which the voe webhook refuses a resize (decideResize, decideLonghorn):
 * each names one reason, e.g. "gate-missing" for ExpandDisks not in KubeVirt's feature gates.
 */
export type VoeRefusalDecision =
  | 'gate-missing'
  | 'hotplug-filesystem'
  | 'provisioner-unknown'
  | 'provisioner-not-validated'
  | 'longhorn-v2'
  | 'longhorn-v2-version'
  | 'longhorn-v2-encrypted'
  | 'longhorn-v2-ublk'
  | 'longhorn-volume-unknown';

/**
 * What Harvester's design says must happen to a resize: admitted, or refused by the voe webhook
 * for one reason (`decision`). Any other refusal (another webhook, a policy, RBAC, validation)
 * does not match.
 */
export type DemoExpectation =
  { expect: 'admitted' } | { expect: 'refused'; decision: VoeRefusalDecision };

/** One resize a user tries through the API server, and what Harvester's design says must happen. */
export type DemoStep = {
  title: string;
  change?: DemoChange;
  claim: string;
  size: string;
} & DemoExpectation;

const S = SCENARIO;
const SETTING = 'csi-online-expand-validation';

/**
 * The demo in order (stageExpansionScenario first): the admission test plan, then the ExpandDisks
 * checks. Every VM runs except vm5; nothing beyond Longhorn is validated in the Setting at first.
 */
export const DEMO_STEPS: readonly DemoStep[] = [
  {
    title: 'Longhorn v1 Block root disk of running VM vm1',
    claim: S.longhornV1Disk,
    size: '20Gi',
    expect: 'admitted',
  },
  {
    title: `Longhorn v2 disk of running VM vm2 (Longhorn ${S.longhornVersion})`,
    claim: S.longhornV2Disk,
    size: '20Gi',
    expect: 'refused',
    decision: 'longhorn-v2-version',
  },
  {
    title:
      'the same, after Longhorn is upgraded to v1.10.1 (v2 volumes expand online since v1.10.0)',
    change: {
      describe: 'Longhorn current-longhorn-version -> v1.10.1',
      kind: KINDS.longhornSettings,
      name: 'current-longhorn-version',
      namespace: 'longhorn-system',
      patch: { value: 'v1.10.1' },
    },
    claim: S.longhornV2Disk,
    size: '20Gi',
    expect: 'admitted',
  },
  {
    title: 'NFS disk of running VM vm3 (nfs.csi.k8s.io not validated)',
    claim: S.nfsDisk,
    size: '20Gi',
    expect: 'refused',
    decision: 'provisioner-not-validated',
  },
  {
    title: 'NFS disk of stopped VM vm5 (nfs.csi.k8s.io still not validated: an offline expansion)',
    claim: S.stoppedVmDisk,
    size: '20Gi',
    expect: 'admitted',
  },
  {
    title: 'the same, after the operator validates nfs.csi.k8s.io',
    change: {
      describe: `Setting ${SETTING} value -> {"nfs.csi.k8s.io":true}`,
      kind: KINDS.settings,
      name: SETTING,
      patch: { value: '{"nfs.csi.k8s.io":true}' },
    },
    claim: S.nfsDisk,
    size: '20Gi',
    expect: 'admitted',
  },
  {
    title: 'TopoLVM Block volume hotplugged into running VM vm4 (topolvm.io not validated)',
    claim: S.topolvmBlockHotplug,
    size: '20Gi',
    expect: 'refused',
    decision: 'provisioner-not-validated',
  },
  {
    title: 'the same, after the operator validates topolvm.io',
    change: {
      describe: `Setting ${SETTING} value -> {"nfs.csi.k8s.io":true,"topolvm.io":true}`,
      kind: KINDS.settings,
      name: SETTING,
      patch: { value: '{"nfs.csi.k8s.io":true,"topolvm.io":true}' },
    },
    claim: S.topolvmBlockHotplug,
    size: '20Gi',
    expect: 'admitted',
  },
  {
    title:
      'TopoLVM Filesystem volume hotplugged into vm4 (never online: the hotplug pod holds the filesystem)',
    claim: S.topolvmFilesystemHotplug,
    size: '20Gi',
    expect: 'refused',
    decision: 'hotplug-filesystem',
  },
  {
    title: "vm1 root disk again, after ExpandDisks is removed from KubeVirt's feature gates",
    change: {
      describe: 'KubeVirt featureGates -> [LiveMigration, HotplugVolumes]',
      kind: KINDS.kubeVirts,
      name: 'kubevirt',
      namespace: 'harvester-system',
      patch: {
        spec: {
          configuration: {
            developerConfiguration: { featureGates: ['LiveMigration', 'HotplugVolumes'] },
          },
        },
      },
    },
    claim: S.longhornV1Disk,
    size: '30Gi',
    expect: 'refused',
    decision: 'gate-missing',
  },
  {
    title: 'the same, once KubeVirt runs v1.9.0 (ExpandDisks is GA there)',
    change: {
      describe: 'KubeVirt status observedKubeVirtVersion -> v1.9.0',
      kind: KINDS.kubeVirts,
      name: 'kubevirt',
      namespace: 'harvester-system',
      patch: { observedKubeVirtVersion: 'v1.9.0', targetKubeVirtVersion: 'v1.9.0' },
      status: true,
    },
    claim: S.longhornV1Disk,
    size: '30Gi',
    expect: 'admitted',
  },
];
