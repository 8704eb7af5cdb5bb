import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { parseExpandValidation, SettingInvalidError } from '../../../src/settings/index.js';
import {
  resolveAdmissionOptions,
  type AdmissionOptions,
} from '../../../src/admission/admission-options.js';
import { decideResize, storageGrows } from '../../../src/admission/decide-resize.js';
import { expandDisksState, resolveProvisioner } from '../../../src/model/index.js';
import type { VirtualMachine } from '../../../src/model/index.js';
import type { ResizeSnapshot } from '../../../src/admission/resize-snapshot.js';
import { storageRequest } from '../../../src/model/storage-request.js';
import {
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornImageClass,
  longhornVolume,
  pvc,
  resized,
  storageClass,
  templateEntry,
  vm,
  vmi,
} from '../../support/webhook/admission-objects.js';

const ROOT = 'vm1-disk-0-kq8zt';
const HARVESTER_GATE = 'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate';
const HARVESTER_PROVIDER = `PVC_EXPAND: pvc default/${ROOT} is not online expandable with its provider`;
const HARVESTER_HOTPLUG = (name: string) =>
  `PVC_EXPAND: Expansion of hotplugged PVC 'default/${name}' in filesystem mode is not supported`;

function parsed(value: string, defaultText?: string): ResizeSnapshot['expandSetting'] {
  return {
    state: 'parsed',
    validation: parseExpandValidation(harvesterSetting(value, defaultText)),
  };
}

/** Longhorn v1 Block root disk of a running VM, 10Gi -> 20Gi, ExpandDisks listed (KubeVirt v1.5.2). */
function base(): ResizeSnapshot {
  const claim = pvc(ROOT);
  return {
    oldPvc: claim,
    pvc: resized(claim, '20Gi'),
    storageClass: longhornImageClass(),
    vms: [vm('vm1')],
    kubeVirt: kubeVirt(),
    expandSetting: parsed(''),
    longhorn: { volume: longhornVolume(), engines: [longhornEngine()], version: 'v1.9.1' },
  };
}

/** An NFS Filesystem disk (provisioner nfs.csi.k8s.io). */
function nfs(value = ''): ResizeSnapshot {
  const claim = pvc(ROOT, {
    provisioner: 'nfs.csi.k8s.io',
    className: 'nfs-csi',
    volumeMode: 'Filesystem',
  });
  return {
    ...base(),
    oldPvc: claim,
    pvc: resized(claim, '20Gi'),
    storageClass: storageClass('nfs-csi', 'nfs.csi.k8s.io', {
      server: 'nfs-server.default.svc.cluster.local',
      share: '/',
    }),
    expandSetting: parsed(value),
    longhorn: undefined,
  } as ResizeSnapshot;
}

/** A TopoLVM PVC hotplugged into vm1 (root disk elsewhere). */
function topolvmHotplug(
  volumeMode: 'Block' | 'Filesystem' | null,
  value = '{"topolvm.io":true}',
): ResizeSnapshot {
  const claim = pvc('data-topolvm', {
    provisioner: 'topolvm.io',
    className: 'topolvm-provisioner',
    volumeMode,
  });
  const machine = vm('vm1', {
    volumes: [
      { name: 'disk-0', persistentVolumeClaim: { claimName: ROOT } },
      {
        name: 'data-topolvm',
        persistentVolumeClaim: { claimName: 'data-topolvm', hotpluggable: true },
      },
    ],
  });
  return {
    ...base(),
    oldPvc: claim,
    pvc: resized(claim, '20Gi'),
    vms: [machine],
    storageClass: storageClass('topolvm-provisioner', 'topolvm.io', {
      'csi.storage.k8s.io/fstype': 'xfs',
    }),
    expandSetting: parsed(value),
    longhorn: undefined,
  } as ResizeSnapshot;
}

const HOTPLUGGED_DATA = {
  name: 'data-topolvm',
  persistentVolumeClaim: { claimName: 'data-topolvm', hotpluggable: true },
};

/**
 * The TopoLVM PVC hotplugged into running vm1 with `virtctl addvolume` without `--persist`: on the
 * VMI's spec (and volumeStatus) only, so no VM's spec names it (the VMs-by-PVC index finds none).
 */
function vmiOnlyHotplug(
  volumeMode: 'Block' | 'Filesystem' | null,
  value = '{"topolvm.io":true}',
  options: { phase?: string; standalone?: boolean } = {},
): ResizeSnapshot {
  return {
    ...topolvmHotplug(volumeMode, value),
    vms: [],
    vmis: [
      vmi('vm1', {
        ...options,
        volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: ROOT } }, HOTPLUGGED_DATA],
      }),
    ],
  };
}

/** The NFS root disk removed from vm1's spec while vm1 runs: its running VMI still has it (not hotplugged). */
function removedFromVmSpec(value = ''): ResizeSnapshot {
  return { ...nfs(value), vms: [], vmis: [vmi('vm1')] };
}

function longhornV2(
  options: {
    version?: string;
    frontend?: string;
    encrypted?: boolean;
    classEncrypted?: boolean | string;
  } = {},
): ResizeSnapshot {
  const snapshot = base();
  snapshot.storageClass = storageClass('longhorn-v2', 'driver.longhorn.io', {
    dataEngine: 'v2',
    numberOfReplicas: '3',
    migratable: 'true',
    ...(options.classEncrypted
      ? { encrypted: options.classEncrypted === true ? 'true' : options.classEncrypted }
      : {}),
  });
  snapshot.longhorn = {
    volume: longhornVolume({
      dataEngine: 'v2',
      frontend: options.frontend ?? 'blockdev',
      encrypted: options.encrypted ?? false,
    }),
    engines: [longhornEngine({ dataEngine: 'v2' })],
    ...(options.version ? { version: options.version } : {}),
  };
  return snapshot;
}

/** The snapshot as assembled when no Longhorn object is read: only the StorageClass speaks for the volume. */
function notRead(snapshot: ResizeSnapshot): ResizeSnapshot {
  return { ...snapshot, longhorn: { volume: null, engines: [], read: false } };
}

interface Case {
  name: string;
  snapshot: () => ResizeSnapshot;
  options?: Partial<AdmissionOptions>;
  allowed: boolean;
  code: number;
  decision: string;
  startsWith?: string;
  includes?: string[];
  excludes?: string[];
  warnings?: number;
  refusing?: string[];
}

const cases: Case[] = [
  // Not a growth: allowed untouched.
  {
    name: 'same size',
    snapshot: () => ({ ...base(), pvc: base().oldPvc! }),
    allowed: true,
    code: 200,
    decision: 'not-resize',
  },
  {
    name: 'shrink (the API server refuses it)',
    snapshot: () => ({ ...base(), pvc: resized(pvc(ROOT), '5Gi') }),
    allowed: true,
    code: 200,
    decision: 'not-resize',
  },
  {
    name: 'no old object (CREATE)',
    snapshot: () => ({ ...base(), oldPvc: null }),
    allowed: true,
    code: 200,
    decision: 'not-resize',
  },
  {
    name: 'same bytes written differently',
    snapshot: () => ({ ...base(), pvc: resized(pvc(ROOT), '10240Mi') }),
    allowed: true,
    code: 200,
    decision: 'not-resize',
  },
  {
    name: 'malformed quantity',
    snapshot: () => ({ ...base(), pvc: resized(pvc(ROOT), '20 gigs') }),
    allowed: false,
    code: 500,
    decision: 'quantity-invalid',
    startsWith: 'internal error: ',
  },

  // 1. Running VM.
  {
    name: 'Longhorn v1 block root disk of a running VM',
    snapshot: base,
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'no VM uses the PVC',
    snapshot: () => ({ ...base(), vms: [] }),
    allowed: true,
    code: 200,
    decision: 'allowed-offline',
    includes: [
      "No VirtualMachine uses PVC default/vm1-disk-0-kq8zt (in its volumes or volumeClaimTemplates annotation) and no running VirtualMachineInstance has it, so no running VM's disk is at stake: allowed without the online checks",
    ],
  },
  {
    name: 'stopped VM: offline even with the gate missing',
    snapshot: () => ({
      ...base(),
      vms: [vm('vm1', { status: 'Stopped' })],
      kubeVirt: kubeVirt({ gates: ['LiveMigration'] }),
    }),
    allowed: true,
    code: 200,
    decision: 'allowed-offline',
    includes: ['default/vm1'],
    refusing: ['gate-missing'],
  },
  {
    name: 'missing printableStatus counts as running (Harvester: != "Stopped")',
    snapshot: () => ({
      ...base(),
      vms: [vm('vm1', { status: null })],
      kubeVirt: kubeVirt({ gates: [] }),
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
  },
  ...['Starting', 'Paused', 'Migrating', 'ErrorUnschedulable', 'Stopping'].map((status): Case => ({
    name: `printableStatus ${status} counts as running`,
    snapshot: () => ({
      ...base(),
      vms: [vm('vm1', { status })],
      kubeVirt: kubeVirt({ gates: [] }),
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
  })),
  {
    name: 'one stopped and one running VM: online rules apply',
    snapshot: () => ({
      ...base(),
      vms: [vm('vm0', { status: 'Stopped' }), vm('vm1')],
      kubeVirt: kubeVirt({ gates: [] }),
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    includes: ['stop VM default/vm1 and expand offline'],
  },
  {
    name: 'more than three running VMs are summarised',
    snapshot: () => ({
      ...base(),
      vms: ['a', 'b', 'c', 'd', 'e'].map((name) => vm(name)),
      kubeVirt: kubeVirt({ gates: [] }),
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    includes: ['stop VMs default/a, default/b, default/c and 2 more'],
  },

  // 2. ExpandDisks.
  {
    name: 'ExpandDisks not listed',
    snapshot: () => ({
      ...base(),
      kubeVirt: kubeVirt({ gates: ['LiveMigration', 'HotplugVolumes'] }),
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    startsWith: `${HARVESTER_GATE}. `,
    includes: [
      'spec.configuration.developerConfiguration.featureGates',
      'harvester-system/kubevirt',
      'stop VM default/vm1',
    ],
  },
  {
    name: 'ExpandDisks listed and disabled: listed wins, as in KubeVirt',
    snapshot: () => ({
      ...base(),
      kubeVirt: kubeVirt({ disabled: ['ExpandDisks'], version: 'v1.8.1' }),
    }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'ExpandDisks only in disabledFeatureGates',
    snapshot: () => ({
      ...base(),
      kubeVirt: kubeVirt({ gates: [], disabled: ['ExpandDisks'], version: 'v1.8.1' }),
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    startsWith: HARVESTER_GATE,
    includes: ['disabledFeatureGates'],
  },
  {
    name: 'KubeVirt v1.9.0 without the gate listed (GA)',
    snapshot: () => ({ ...base(), kubeVirt: kubeVirt({ gates: [], version: 'v1.9.0' }) }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'KubeVirt v1.10.2 with the gate in disabledFeatureGates (GA cannot be disabled)',
    snapshot: () => ({
      ...base(),
      kubeVirt: kubeVirt({ gates: [], disabled: ['ExpandDisks'], version: 'v1.10.2' }),
    }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: "Harvester's SUSE KubeVirt build 1.9.0-150700.3.21.1 without the gate listed (GA)",
    snapshot: () => ({
      ...base(),
      kubeVirt: kubeVirt({ gates: [], version: '1.9.0-150700.3.21.1' }),
    }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'KubeVirt v1.9.0-rc.1 is not yet GA',
    snapshot: () => ({ ...base(), kubeVirt: kubeVirt({ gates: [], version: 'v1.9.0-rc.1' }) }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
  },
  {
    name: 'KubeVirt v1.8.1 without the gate',
    snapshot: () => ({ ...base(), kubeVirt: kubeVirt({ gates: [], version: 'v1.8.1' }) }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
  },
  {
    name: 'KubeVirt CR missing',
    snapshot: () => ({ ...base(), kubeVirt: null }),
    allowed: false,
    code: 500,
    decision: 'kubevirt-missing',
    startsWith: 'internal error: KubeVirt CR harvester-system/kubevirt not found',
  },
  {
    name: 'KubeVirt CR missing at a configured location',
    snapshot: () => ({ ...base(), kubeVirt: null }),
    options: { kubeVirtNamespace: 'kubevirt' },
    allowed: false,
    code: 500,
    decision: 'kubevirt-missing',
    includes: ['kubevirt/kubevirt', '--kubevirt'],
  },

  // 3. Hotplugged Filesystem volume.
  {
    name: 'hotplugged Filesystem TopoLVM volume',
    snapshot: () => topolvmHotplug('Filesystem'),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
    startsWith: `${HARVESTER_HOTPLUG('data-topolvm')}. `,
    includes: ['Block-mode'],
  },
  {
    name: 'hotplugged volume without volumeMode (Filesystem)',
    snapshot: () => topolvmHotplug(null),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
  },
  {
    name: 'hotplugged Block TopoLVM volume, driver validated',
    snapshot: () => topolvmHotplug('Block'),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'hotplugged Block TopoLVM volume, driver not validated',
    snapshot: () => topolvmHotplug('Block', '{"nfs.csi.k8s.io":true}'),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    includes: ['"topolvm.io":true'],
  },
  {
    name: 'hotplugged via dataVolume in Filesystem mode',
    snapshot: () => {
      const snapshot = topolvmHotplug('Filesystem');
      snapshot.vms = [
        vm('vm1', {
          volumes: [
            { name: 'data-topolvm', dataVolume: { name: 'data-topolvm', hotpluggable: true } },
          ],
        }),
      ];
      return snapshot;
    },
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
  },
  {
    name: 'hotplugged into a stopped VM while another VM runs',
    snapshot: () => {
      const snapshot = topolvmHotplug('Filesystem');
      const stopped = {
        ...snapshot.vms[0],
        status: { printableStatus: 'Stopped' },
      } as VirtualMachine;
      snapshot.vms = [
        stopped,
        vm('vm2', {
          volumes: [{ name: 'shared', persistentVolumeClaim: { claimName: 'data-topolvm' } }],
        }),
      ];
      return snapshot;
    },
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
    includes: ['hotplugged into default/vm1'],
  },
  {
    name: 'Filesystem volume not hotplugged (NFS root disk validated)',
    snapshot: () => nfs('{"nfs.csi.k8s.io":true}'),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },

  // Volumes only the running VMI has (Harvester reads VM specs only and would allow these offline).
  {
    name: 'Filesystem volume hotplugged on the running VMI only (virtctl addvolume without --persist)',
    snapshot: () => vmiOnlyHotplug('Filesystem'),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
    startsWith: `${HARVESTER_HOTPLUG('data-topolvm')}. `,
    includes: [
      "It is hotplugged into default/vm1 (found on the running VirtualMachineInstance only, not in the VM's spec: VM default/vm1; " +
        'hotplugged with virtctl addvolume without --persist, or removed from the spec while the VM runs), and a hotplugged Filesystem volume',
      "Use a Block-mode volume for hotplug (added with virtctl addvolume --persist, so that the VM's spec names it), or stop VM default/vm1 and expand offline.",
    ],
  },
  {
    name: 'hotplugged on the running VMI only, no volumeMode (Filesystem)',
    snapshot: () => vmiOnlyHotplug(null),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
  },
  ...['Pending', 'Scheduling', 'Scheduled', 'Unknown', ''].map((phase): Case => ({
    name: `a VMI in phase "${phase}" counts as running`,
    snapshot: () => vmiOnlyHotplug('Filesystem', undefined, { phase }),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
  })),
  ...['Succeeded', 'Failed'].map((phase): Case => ({
    name: `a VMI in phase ${phase} no longer runs: offline`,
    snapshot: () => vmiOnlyHotplug('Filesystem', undefined, { phase }),
    allowed: true,
    code: 200,
    decision: 'allowed-offline',
    includes: ['and no running VirtualMachineInstance has it'],
    // Its hotplugged volumes go with it (they are in no VM's spec): not held against the PVC.
    refusing: [],
  })),
  {
    name: 'hotplugged into a standalone VMI (no VM controls it)',
    snapshot: () => vmiOnlyHotplug('Filesystem', undefined, { standalone: true }),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
    includes: ["not in the VM's spec: VMI default/vm1 (no VM);"],
  },
  {
    name: 'Block volume hotplugged on the running VMI only, driver validated: online, allowed',
    snapshot: () => vmiOnlyHotplug('Block'),
    allowed: true,
    code: 200,
    decision: 'allowed',
    includes: ['Online expansion of PVC default/data-topolvm is allowed.'],
  },
  {
    name: 'Block volume hotplugged on the running VMI only, driver not validated',
    snapshot: () => vmiOnlyHotplug('Block', '{"nfs.csi.k8s.io":true}'),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    includes: ['"topolvm.io":true', 'stop VM default/vm1 and expand offline'],
  },
  {
    name: 'Block volume hotplugged on the running VMI only, ExpandDisks missing',
    snapshot: () => ({ ...vmiOnlyHotplug('Block'), kubeVirt: kubeVirt({ gates: [] }) }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    includes: ['stop VM default/vm1 and expand offline'],
  },
  {
    name: "a hotplugged volume being unplugged (gone from the VMI's spec, still in its volumeStatus) is still hotplugged into the VM",
    snapshot: () => {
      const snapshot = vmiOnlyHotplug('Filesystem');
      const instance = snapshot.vmis![0]!;
      instance.spec!.volumes = instance.spec!.volumes!.filter(
        (volume) => volume.name !== 'data-topolvm',
      );
      return snapshot;
    },
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
    includes: ['VM default/vm1'],
  },
  {
    name: "a volume in the VM's spec but hotplugged on the running VMI counts as hotplugged",
    snapshot: () => ({
      ...vmiOnlyHotplug('Filesystem'),
      vms: [
        vm('vm1', {
          volumes: [
            { name: 'disk-0', persistentVolumeClaim: { claimName: ROOT } },
            { name: 'data-topolvm', persistentVolumeClaim: { claimName: 'data-topolvm' } },
          ],
        }),
      ],
    }),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
    includes: ['(found on the running VirtualMachineInstance only'],
  },
  {
    name: "NFS disk removed from the VM's spec while the VM runs, NFS not validated",
    snapshot: () => removedFromVmSpec(),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    startsWith: `${HARVESTER_PROVIDER}. `,
    includes: ['stop VM default/vm1 and expand offline'],
  },
  {
    name: "NFS disk removed from the VM's spec while the VM runs, NFS validated",
    snapshot: () => removedFromVmSpec('{"nfs.csi.k8s.io":true}'),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'a Longhorn v2 disk only the running VMI has meets the Longhorn checks (policy deny)',
    snapshot: () => ({ ...longhornV2({ version: 'v1.10.1' }), vms: [], vmis: [vmi('vm1')] }),
    options: { longhornV2Expansion: 'deny' },
    allowed: false,
    code: 422,
    decision: 'longhorn-v2',
  },
  {
    name: 'a VM printed Stopped whose VMI still runs with the PVC: online rules apply',
    snapshot: () => ({
      ...base(),
      vms: [vm('vm1', { status: 'Stopped' })],
      vmis: [vmi('vm1')],
      kubeVirt: kubeVirt({ gates: [] }),
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    includes: ['stop VM default/vm1 and expand offline'],
    excludes: ['VirtualMachineInstance only'],
  },

  // 4. Provisioner validated by the Setting.
  {
    name: 'NFS root disk not validated',
    snapshot: () => nfs(),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    startsWith: `${HARVESTER_PROVIDER}. `,
    includes: [
      'nfs.csi.k8s.io',
      'csi-online-expand-validation',
      'stop VM default/vm1',
      'add "nfs.csi.k8s.io":true to the Setting\'s value',
    ],
  },
  {
    name: 'NFS listed as false',
    snapshot: () => nfs('{"nfs.csi.k8s.io":false}'),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
  },
  {
    name: 'value overrides default for Longhorn',
    snapshot: () => ({ ...base(), expandSetting: parsed('{"driver.longhorn.io":false}') }),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    startsWith: HARVESTER_PROVIDER,
  },
  // JSON null as Harvester reads it (Go's json.Unmarshal): a policy answer, not a 500.
  {
    name: 'value null empties the map: Longhorn from default not validated',
    snapshot: () => ({ ...base(), expandSetting: parsed('null', '{"driver.longhorn.io":true}') }),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    startsWith: HARVESTER_PROVIDER,
  },
  {
    name: 'NFS entry null reads as false',
    snapshot: () => nfs('{"nfs.csi.k8s.io":null}'),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    startsWith: HARVESTER_PROVIDER,
  },
  {
    name: 'a null entry of another driver keeps Longhorn validated',
    snapshot: () => ({ ...base(), expandSetting: parsed('{"nfs.csi.k8s.io":null}') }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Setting missing: Harvester default validates Longhorn, with a warning',
    snapshot: () => ({ ...base(), expandSetting: { state: 'missing' } }),
    allowed: true,
    code: 200,
    decision: 'allowed',
    warnings: 1,
  },
  {
    name: 'Setting missing: NFS not validated; the message says to create the Setting, Longhorn kept in it',
    snapshot: () => ({ ...nfs(), expandSetting: { state: 'missing' } }),
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    warnings: 1,
    includes: ['create the Setting with value {"nfs.csi.k8s.io":true,"driver.longhorn.io":true}'],
  },
  {
    name: 'Setting with invalid JSON',
    snapshot: () => ({
      ...base(),
      expandSetting: {
        state: 'invalid',
        error: new SettingInvalidError(
          'SETTING_INVALID_JSON',
          'Setting csi-online-expand-validation field "value" is not valid JSON',
          { setting: 'csi-online-expand-validation', field: 'value' },
        ),
      },
    }),
    allowed: false,
    code: 500,
    decision: 'setting-invalid',
    startsWith: 'internal error: ',
    includes: ['SETTING_INVALID_JSON'],
  },
  {
    name: 'no provisioner annotation and StorageClass missing',
    snapshot: () => {
      const claim = pvc(ROOT, { annotations: {} });
      return { ...base(), oldPvc: claim, pvc: resized(claim, '20Gi'), storageClass: null };
    },
    allowed: false,
    code: 500,
    decision: 'provisioner-unknown',
    startsWith: 'internal error: the provisioner of PVC ',
    includes: [
      'cannot be determined: no storage-provisioner annotation and StorageClass "longhorn-image-7r2k9" was not found',
    ],
  },
  {
    name: 'empty beta annotation: the StorageClass provisioner decides, as Harvester falls back',
    snapshot: () => {
      const claim = pvc(ROOT, {
        annotations: { 'volume.beta.kubernetes.io/storage-provisioner': '' },
      });
      return { ...base(), oldPvc: claim, pvc: resized(claim, '20Gi') };
    },
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'empty annotation and no StorageClass',
    snapshot: () => {
      const claim = pvc(ROOT, { annotations: { 'volume.kubernetes.io/storage-provisioner': '' } });
      return { ...base(), oldPvc: claim, pvc: resized(claim, '20Gi'), storageClass: null };
    },
    allowed: false,
    code: 500,
    decision: 'provisioner-unknown',
    startsWith: 'internal error: the provisioner of PVC ',
    includes: [
      'an empty volume.kubernetes.io/storage-provisioner annotation and StorageClass "longhorn-image-7r2k9" was not found',
    ],
  },
  {
    // The beta annotation is Harvester's provisioner (resolveProvisioner), but an annotation anyone
    // updating the PVC can write does not hide the StorageClass's driver: both are judged.
    name: "beta annotation disagreeing with the StorageClass (NFS class, Longhorn annotation): the class's provisioner is judged too",
    snapshot: () => {
      const claim = pvc(ROOT, {
        className: 'nfs-csi',
        annotations: { 'volume.beta.kubernetes.io/storage-provisioner': 'driver.longhorn.io' },
      });
      return {
        ...nfs(),
        oldPvc: claim,
        pvc: resized(claim, '20Gi'),
        longhorn: { volume: longhornVolume(), engines: [], version: 'v1.9.1' },
      };
    },
    allowed: false,
    code: 422,
    decision: 'provisioner-not-validated',
    startsWith: `${HARVESTER_PROVIDER}. Provisioner nfs.csi.k8s.io is not validated`,
    includes: [
      'names provisioner driver.longhorn.io, but nfs.csi.k8s.io is named by its StorageClass',
    ],
  },

  // 5. Longhorn data engine.
  {
    name: 'Longhorn v2, policy auto, Longhorn v1.9.1',
    snapshot: () => longhornV2({ version: 'v1.9.1' }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-version',
    startsWith: `${HARVESTER_PROVIDER}. `,
    includes: ['v1.9.1', 'v1.10.0'],
  },
  {
    name: 'Longhorn v2, policy auto, version unknown',
    snapshot: () => longhornV2(),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-version',
    includes: ['unknown', 'longhorn-system/current-longhorn-version'],
  },
  // Longhorn objects not read (--longhorn off, or --longhorn auto while longhorn.io/v1beta2 is not served or not listed yet): the version was never looked at.
  {
    name: 'Longhorn v2, policy auto, Longhorn objects not read',
    snapshot: () => notRead(longhornV2()),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-version',
    startsWith: `${HARVESTER_PROVIDER}. `,
    includes: [
      '(StorageClass parameter dataEngine)',
      'the Longhorn version was not read',
      '--longhorn off',
      'longhorn.io/v1beta2',
      'cannot list them yet',
      '--longhorn auto or on',
      'manifests/webhook-rbac.yaml',
      'longhorn-system/current-longhorn-version',
      '--longhorn-v2-expansion allow',
    ],
    excludes: ['Upgrade Longhorn', 'not found', 'unknown'],
  },
  {
    name: 'Longhorn objects not read, v2 by StorageClass, policy allow',
    snapshot: () => notRead(longhornV2()),
    options: { longhornV2Expansion: 'allow' },
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Longhorn objects not read, v2 by StorageClass, policy deny',
    snapshot: () => notRead(longhornV2()),
    options: { longhornV2Expansion: 'deny' },
    allowed: false,
    code: 422,
    decision: 'longhorn-v2',
    includes: ['longhornV2Expansion=deny'],
  },
  {
    name: 'Longhorn objects not read, encrypted v2 StorageClass',
    snapshot: () => notRead(longhornV2({ classEncrypted: true })),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-encrypted',
  },
  {
    name: 'Longhorn objects not read, no dataEngine parameter: v1',
    snapshot: () => notRead(base()),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Longhorn v2, policy auto, Longhorn v1.10.0',
    snapshot: () => longhornV2({ version: 'v1.10.0' }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Longhorn v2, policy auto, Longhorn hotfix v1.10.0-hotfix-1',
    snapshot: () => longhornV2({ version: 'v1.10.0-hotfix-1' }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Longhorn v2, policy auto, Longhorn v1.10.0-rc2',
    snapshot: () => longhornV2({ version: 'v1.10.0-rc2' }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-version',
  },
  {
    name: 'Longhorn v2, policy auto, Longhorn v1.11.1, nvmf frontend',
    snapshot: () => longhornV2({ version: 'v1.11.1', frontend: 'nvmf' }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Longhorn v2, policy auto, ublk frontend',
    snapshot: () => longhornV2({ version: 'v1.10.1', frontend: 'ublk' }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-ublk',
    includes: ['ublk', 'Stop VM default/vm1'],
  },
  {
    name: 'Longhorn v2, policy deny, Longhorn v1.10.1',
    snapshot: () => longhornV2({ version: 'v1.10.1' }),
    options: { longhornV2Expansion: 'deny' },
    allowed: false,
    code: 422,
    decision: 'longhorn-v2',
    includes: ['longhornV2Expansion=deny'],
  },
  {
    name: 'Longhorn v2, policy allow, Longhorn v1.9.1',
    snapshot: () => longhornV2({ version: 'v1.9.1' }),
    options: { longhornV2Expansion: 'allow' },
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Longhorn v2, policy allow, ublk frontend',
    snapshot: () => longhornV2({ frontend: 'ublk' }),
    options: { longhornV2Expansion: 'allow' },
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'encrypted v2 (StorageClass), policy allow',
    snapshot: () => longhornV2({ version: 'v1.10.1', classEncrypted: true }),
    options: { longhornV2Expansion: 'allow' },
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-encrypted',
    includes: ['encrypted'],
  },
  // Longhorn reads the parameter with Go's strconv.ParseBool.
  {
    name: 'encrypted v2 (StorageClass encrypted: "True")',
    snapshot: () => longhornV2({ version: 'v1.10.1', classEncrypted: 'True' }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-encrypted',
  },
  {
    name: 'encrypted v2 (StorageClass encrypted: "1")',
    snapshot: () => longhornV2({ version: 'v1.10.1', classEncrypted: '1' }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-encrypted',
  },
  {
    name: 'StorageClass encrypted: "false" on v2 is not encrypted',
    snapshot: () => longhornV2({ version: 'v1.10.1', classEncrypted: 'false' }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'encrypted v2 (Volume CR), policy auto, v1.10.1',
    snapshot: () => longhornV2({ version: 'v1.10.1', encrypted: true }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-encrypted',
  },
  {
    // Admitted as Harvester does, with a warning: KubeVirt before v1.8.0 fails to grow a LUKS disk in the running VM (kubevirt#16365).
    name: 'encrypted v1 volume on KubeVirt v1.5.2: allowed with a warning',
    snapshot: () => ({
      ...base(),
      storageClass: longhornImageClass({ encrypted: 'true' }),
      longhorn: { volume: longhornVolume({ encrypted: true }), engines: [] },
    }),
    allowed: true,
    code: 200,
    decision: 'allowed',
    warnings: 1,
  },
  {
    name: 'encrypted v1 volume on KubeVirt v1.8.0: no warning',
    snapshot: () => ({
      ...base(),
      kubeVirt: kubeVirt({ version: 'v1.8.0' }),
      storageClass: longhornImageClass({ encrypted: 'true' }),
      longhorn: { volume: longhornVolume({ encrypted: true }), engines: [] },
    }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'encrypted v1 Filesystem-mode volume (a disk.img): no warning',
    snapshot: () => {
      const claim = pvc(ROOT, { volumeMode: 'Filesystem' });
      return {
        ...base(),
        oldPvc: claim,
        pvc: resized(claim, '20Gi'),
        storageClass: longhornImageClass({ encrypted: 'true' }),
        longhorn: { volume: longhornVolume({ encrypted: true }), engines: [] },
      };
    },
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'encrypted v1 volume of a stopped VM: offline, no warning',
    snapshot: () => ({
      ...base(),
      vms: [vm('vm1', { status: 'Stopped' })],
      storageClass: longhornImageClass({ encrypted: 'true' }),
      longhorn: { volume: longhornVolume({ encrypted: true }), engines: [] },
    }),
    allowed: true,
    code: 200,
    decision: 'allowed-offline',
  },
  {
    name: 'v2 from the Engine CR when the Volume CR is missing',
    snapshot: () => ({
      ...base(),
      longhorn: {
        volume: null,
        engines: [longhornEngine({ dataEngine: 'v2' })],
        version: 'v1.9.1',
      },
    }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-version',
    includes: ['Engine CR'],
  },
  {
    name: 'two engines during a migration, one v2',
    snapshot: () => ({
      ...base(),
      longhorn: {
        volume: null,
        engines: [longhornEngine(), longhornEngine({ dataEngine: 'v2', index: 1 })],
      },
    }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-version',
  },
  {
    name: 'v2 from the StorageClass parameter when no Longhorn CRs exist',
    snapshot: () => ({ ...longhornV2(), longhorn: { volume: null, engines: [] } }),
    allowed: false,
    code: 422,
    decision: 'longhorn-v2-version',
    includes: ['StorageClass parameter dataEngine'],
  },
  {
    name: 'the Volume CR wins over the StorageClass parameter',
    snapshot: () => ({
      ...longhornV2(),
      longhorn: { volume: longhornVolume({ dataEngine: 'v1' }), engines: [] },
    }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    // Harvester refuses too (it requires exactly one Engine); v1 would be a guess.
    name: 'Longhorn objects read, none of the PV, no parameter: the engine is unknown, an internal error',
    snapshot: () => ({ ...base(), longhorn: { volume: null, engines: [] } }),
    allowed: false,
    code: 500,
    decision: 'longhorn-volume-unknown',
    startsWith:
      'internal error: the data engine of PVC default/vm1-disk-0-kq8zt cannot be determined: no Longhorn Volume in longhorn-system is named pvc-',
    includes: [
      'status.kubernetesStatus.pvName',
      'no Engine is labelled longhornvolume=pvc-',
      'Retry once Longhorn has recorded the volume, or stop VM default/vm1',
    ],
  },
  {
    // allow admits every data engine of an unencrypted volume: which one it is does not matter (as with --longhorn off).
    name: 'Longhorn objects read, none of the PV, no parameter, policy allow: allowed, saying the engine is unknown',
    snapshot: () => ({ ...base(), longhorn: { volume: null, engines: [] } }),
    options: { longhornV2Expansion: 'allow' },
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'the same with an encrypted StorageClass, policy allow: still an internal error (an encrypted v2 volume cannot grow)',
    snapshot: () => {
      const snapshot = base();
      snapshot.storageClass = storageClass('longhorn-crypt', 'driver.longhorn.io', {
        encrypted: 'true',
      });
      return { ...snapshot, longhorn: { volume: null, engines: [] } };
    },
    options: { longhornV2Expansion: 'allow' },
    allowed: false,
    code: 500,
    decision: 'longhorn-volume-unknown',
  },
  {
    name: 'two Longhorn Volumes record the PV and none is named after it: the refusal names them instead of telling to wait',
    snapshot: () => ({
      ...base(),
      longhorn: { volume: null, engines: [], volumesRecordingPv: ['manual-a', 'manual-b'] },
    }),
    allowed: false,
    code: 500,
    decision: 'longhorn-volume-unknown',
    includes: [
      'and manual-a, manual-b all record PV pvc-',
      "so none can be taken for it. Find which of them the PV's volumeHandle names",
    ],
  },
  {
    name: 'a Longhorn PVC not bound to a PV: the engine is unknown',
    snapshot: () => {
      const snapshot = base();
      delete snapshot.pvc.spec?.volumeName;
      return { ...snapshot, longhorn: { volume: null, engines: [] } };
    },
    allowed: false,
    code: 500,
    decision: 'longhorn-volume-unknown',
    includes: ['it is not bound to a PV'],
  },
  {
    name: "a Volume CR without dataEngine (Longhorn before v2 engines): v1, Longhorn's default",
    snapshot: () => ({
      ...base(),
      longhorn: { volume: { ...longhornVolume(), spec: {} }, engines: [] },
    }),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'Longhorn objects not read and no parameter: v1 by default',
    snapshot: () => notRead(base()),
    allowed: true,
    code: 200,
    decision: 'allowed',
  },
  {
    name: 'no Longhorn CRs of the PV, offline: allowed (nothing online to judge)',
    snapshot: () => ({
      ...base(),
      vms: [vm('vm1', { status: 'Stopped' })],
      longhorn: { volume: null, engines: [] },
    }),
    allowed: true,
    code: 200,
    decision: 'allowed-offline',
  },

  // Order: the first refusal decides, every reason is listed.
  {
    name: 'gate missing and provider not validated: the gate decides',
    snapshot: () => ({ ...nfs(), kubeVirt: kubeVirt({ gates: [] }) }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    refusing: ['gate-missing', 'provisioner-not-validated'],
  },
  {
    name: 'hotplugged Filesystem and driver not validated: hotplug decides',
    snapshot: () => topolvmHotplug('Filesystem', ''),
    allowed: false,
    code: 422,
    decision: 'hotplug-filesystem',
    refusing: ['hotplug-filesystem', 'provisioner-not-validated'],
  },
  {
    name: 'gate missing before an invalid Setting',
    snapshot: () => ({
      ...base(),
      kubeVirt: kubeVirt({ gates: [] }),
      expandSetting: {
        state: 'invalid',
        error: new SettingInvalidError('SETTING_INVALID_VALUE', 'x', {
          setting: 's',
          field: 'value',
        }),
      },
    }),
    allowed: false,
    code: 422,
    decision: 'gate-missing',
    refusing: ['gate-missing', 'setting-invalid'],
  },
];

describe('decideResize', () => {
  for (const c of cases) {
    it(c.name, () => {
      const result = decideResize(c.snapshot(), resolveAdmissionOptions(c.options));
      assert.strictEqual(result.allowed, c.allowed, result.message);
      assert.strictEqual(result.code, c.code);
      assert.strictEqual(result.decision, c.decision);
      if (!c.allowed) {
        assert.strictEqual(result.reason, c.code === 500 ? 'InternalError' : 'Invalid');
        if (c.code === 422) assert.ok(result.message.startsWith('PVC_EXPAND: '), result.message);
      } else {
        assert.isUndefined(result.reason);
      }
      if (c.startsWith) assert.ok(result.message.startsWith(c.startsWith), result.message);
      for (const text of c.includes ?? [])
        assert.ok(
          result.message.includes(text),
          `${JSON.stringify(text)} not in: ${result.message}`,
        );
      for (const text of c.excludes ?? [])
        assert.ok(!result.message.includes(text), `${JSON.stringify(text)} in: ${result.message}`);
      assert.strictEqual(result.warnings.length, c.warnings ?? 0, result.warnings.join('; '));
      for (const text of result.warnings) assert.ok(text.length <= 120);
      if (c.refusing) {
        const refusing = result.findings
          .filter((f) => f.outcome === 'refuse' || f.outcome === 'error')
          .map((f) => f.decision);
        assert.deepStrictEqual(refusing, c.refusing);
      }
    });
  }

  describe('writes whole sentences: Harvester first, then why and what to do', () => {
    const cases: Array<{
      title: string;
      snapshot: () => ResizeSnapshot;
      options?: Parameters<typeof resolveAdmissionOptions>[0];
      message: string;
    }> = [
      {
        title: 'ExpandDisks missing',
        snapshot: () => ({ ...base(), kubeVirt: kubeVirt({ gates: [] }) }),
        message:
          'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. ExpandDisks is not listed in featureGates of KubeVirt ' +
          'harvester-system/kubevirt: add ExpandDisks to spec.configuration.developerConfiguration.featureGates (and remove it ' +
          'from disabledFeatureGates), or stop VM default/vm1 and expand offline.',
      },
      {
        title: 'a provisioner the Setting does not validate',
        snapshot: () => nfs(),
        message:
          `${HARVESTER_PROVIDER}. Provisioner nfs.csi.k8s.io is not validated for online expansion in Setting ` +
          'csi-online-expand-validation. If the driver supports online expansion, add "nfs.csi.k8s.io":true to the Setting\'s value, ' +
          'or stop VM default/vm1 and expand offline.',
      },
      {
        title: 'the Longhorn version unknown because Longhorn objects are not read',
        snapshot: () => notRead(longhornV2()),
        message:
          `${HARVESTER_PROVIDER}. It is a Longhorn v2 data engine volume (StorageClass parameter dataEngine): Longhorn grows those from v1.10.0 on, ` +
          'and the Longhorn version was not read: Longhorn objects are not read (--longhorn off, or --longhorn auto while the cluster does not ' +
          'serve longhorn.io/v1beta2 or voe cannot list them yet, as its log says). Run with --longhorn auto or on (and the Longhorn Role of ' +
          'manifests/webhook-rbac.yaml) to read Setting longhorn-system/current-longhorn-version, or, if Longhorn is v1.10.0 or later, with ' +
          '--longhorn-v2-expansion allow (no version or frontend check); or use a v1 data engine StorageClass.',
      },
      {
        title: 'the Longhorn version unknown because its Setting is not found',
        snapshot: () => longhornV2(),
        options: { longhornNamespace: 'lh', longhornVersionSetting: 'v' },
        message:
          `${HARVESTER_PROVIDER}. It is a Longhorn v2 data engine volume (Volume CR): Longhorn grows those from v1.10.0 on, ` +
          'and the Longhorn version is unknown (Setting lh/v not found). If this Longhorn build grows v2 volumes (v1.10.0 or later), ' +
          'run voe with --longhorn-v2-expansion allow; or use a v1 data engine StorageClass.',
      },
    ];
    for (const { title, snapshot, options, message } of cases) {
      it(title, () => {
        assert.strictEqual(
          decideResize(snapshot(), resolveAdmissionOptions(options)).message,
          message,
        );
      });
    }
  });

  it('advises an upgrade only for a Longhorn release older than v1.10.0, and says why other versions cannot be compared', () => {
    const message = (version: string | undefined): string => {
      const snapshot = longhornV2();
      snapshot.longhorn = {
        ...(snapshot.longhorn as NonNullable<ResizeSnapshot['longhorn']>),
        ...(version === undefined ? {} : { version }),
      };
      const result = decideResize(snapshot, resolveAdmissionOptions());
      assert.strictEqual(result.decision, 'longhorn-v2-version');
      return result.message;
    };
    assert.match(
      message('v1.9.2'),
      /and Longhorn v1\.9\.2 is installed\. Upgrade Longhorn to v1\.10\.0 or later, or use a v1 data engine StorageClass\.$/,
    );
    // A build named after a branch ("master-head") or a pre-release of v1.10.0: nothing to upgrade to, the operator may vouch for it.
    assert.match(
      message('master-head'),
      /Longhorn master-head is installed, which is no version voe can compare\. If this Longhorn build grows v2 volumes \(v1\.10\.0 or later\), run voe with --longhorn-v2-expansion allow; or use a v1 data engine StorageClass\.$/,
    );
    assert.match(
      message('v1.10.0-rc1'),
      /Longhorn v1\.10\.0-rc1 is installed, a pre-release or development build: voe counts releases only\. Upgrade Longhorn to a release, or, if this Longhorn build/,
    );
    assert.notMatch(message('v1.10.0-rc1'), /Upgrade Longhorn to v1\.10\.0 or later/);
    // The Setting exists with no value: unknown, not missing.
    assert.match(
      message(''),
      /the Longhorn version is unknown \(Setting longhorn-system\/current-longhorn-version has no value\)/,
    );
    assert.match(
      message(undefined),
      /the Longhorn version is unknown \(Setting longhorn-system\/current-longhorn-version not found\)/,
    );
  });

  it('says in the vm finding that the PVC was found on the running VMI only, naming the VM, and advises --persist or stopping it', () => {
    const online = decideResize(
      removedFromVmSpec('{"nfs.csi.k8s.io":true}'),
      resolveAdmissionOptions(),
    ).findings[0]!;
    assert.deepStrictEqual(online, {
      check: 'vm',
      outcome: 'pass',
      decision: 'online',
      message:
        'Running VM(s) use PVC default/vm1-disk-0-kq8zt (default/vm1): online expansion rules apply. It was found on the running ' +
        "VirtualMachineInstance only, not in the VM's spec: VM default/vm1; hotplugged with virtctl addvolume without --persist, or removed " +
        'from the spec while the VM runs. Harvester does not see such a volume; hotplug with --persist, or stop the VM before growing it.',
    });
    // A VM whose spec names the PVC, and its running VMI: nothing to say.
    const both = decideResize(
      { ...nfs('{"nfs.csi.k8s.io":true}'), vmis: [vmi('vm1')] },
      resolveAdmissionOptions(),
    ).findings[0]!;
    assert.strictEqual(
      both.message,
      'Running VM(s) use PVC default/vm1-disk-0-kq8zt (default/vm1): online expansion rules apply.',
    );
  });

  it("judges a persisted hotplug (in the VM's spec and on its VMI) exactly as before VMIs were read", () => {
    const options = resolveAdmissionOptions();
    for (const volumeMode of ['Filesystem', 'Block'] as const) {
      const persisted = topolvmHotplug(volumeMode);
      const withVmi = {
        ...persisted,
        vmis: [
          vmi('vm1', {
            volumes: [
              { name: 'disk-0', persistentVolumeClaim: { claimName: ROOT } },
              HOTPLUGGED_DATA,
            ],
          }),
        ],
      };
      assert.deepStrictEqual(
        decideResize(withVmi, options),
        decideResize(persisted, options),
        volumeMode,
      );
    }
    assert.strictEqual(
      decideResize({ ...topolvmHotplug('Filesystem'), vmis: [vmi('vm1')] }, options).message,
      `${HARVESTER_HOTPLUG('data-topolvm')}. It is hotplugged into default/vm1, and a hotplugged Filesystem volume may no longer be mounted by ` +
        'any hotplug pod, so it would never grow inside the VM. Use a Block-mode volume for hotplug, or stop VM default/vm1 and expand offline.',
    );
  });

  it('names each running user once, its VM in the spec and another VM by its VMI only', () => {
    const snapshot: ResizeSnapshot = {
      ...vmiOnlyHotplug('Filesystem'),
      vms: [
        vm('vm0', {
          volumes: [{ name: 'shared', persistentVolumeClaim: { claimName: 'data-topolvm' } }],
        }),
      ],
      vmis: [
        vmi('vm0', {
          volumes: [{ name: 'shared', persistentVolumeClaim: { claimName: 'data-topolvm' } }],
        }),
        vmi('vm1', { volumes: [HOTPLUGGED_DATA] }),
      ],
    };
    const result = decideResize(snapshot, resolveAdmissionOptions());
    assert.strictEqual(result.decision, 'hotplug-filesystem');
    assert.match(
      result.message,
      /It is hotplugged into default\/vm1 \(found on the running VirtualMachineInstance only, not in the VM's spec: VM default\/vm1;/,
    );
    assert.match(result.message, /or stop VMs default\/vm0, default\/vm1 and expand offline\.$/);
    assert.match(
      result.findings[0]!.message,
      /^Running VM\(s\) use PVC default\/data-topolvm \(default\/vm0, default\/vm1\): online expansion rules apply\. It was found on the running VirtualMachineInstance only, not in the VM's spec: VM default\/vm1;/,
    );
  });

  it('findings listed after an offline verdict give no advice to stop VMs that do not run', () => {
    const stopped = {
      ...nfs(),
      kubeVirt: kubeVirt({ gates: [] }),
      vms: [vm('vm1', { status: 'Stopped' })],
    };
    const result = decideResize(stopped, resolveAdmissionOptions());
    assert.strictEqual(result.decision, 'allowed-offline');
    const advice = result.findings.filter((f) => f.outcome === 'refuse').map((f) => f.message);
    assert.ok(advice.length > 0);
    for (const text of advice) {
      assert.ok(text.endsWith('or expand offline (no running VM uses it).'), text);
      assert.notMatch(text, /stop VMs? +and/);
    }
  });

  it('lists one finding per check in the decision order', () => {
    const result = decideResize(nfs(), resolveAdmissionOptions());
    assert.deepStrictEqual(
      result.findings.map((f) => f.check),
      ['vm', 'expand-disks', 'hotplug', 'provisioner', 'longhorn'],
    );
    assert.deepStrictEqual(
      result.findings.map((f) => f.outcome),
      ['pass', 'pass', 'pass', 'refuse', 'skip'],
    );
  });

  it('is pure: the snapshot is not modified and the result is repeatable', () => {
    const snapshot = longhornV2({ version: 'v1.9.1' });
    const copy = structuredClone({ ...snapshot, expandSetting: null });
    const first = decideResize(snapshot, resolveAdmissionOptions());
    const second = decideResize(snapshot, resolveAdmissionOptions());
    assert.deepStrictEqual(first, second);
    assert.deepStrictEqual({ ...snapshot, expandSetting: null }, copy);
  });
});

describe('resolveProvisioner (as Harvester)', () => {
  const cls = storageClass('sc', 'from.storage.class');
  const table: Array<[string, Record<string, string>, string | undefined]> = [
    [
      'beta key present wins',
      {
        'volume.beta.kubernetes.io/storage-provisioner': 'beta.example',
        'volume.kubernetes.io/storage-provisioner': 'ga.example',
      },
      'beta.example',
    ],
    [
      'beta key present but empty: the StorageClass (the GA key is not read)',
      {
        'volume.beta.kubernetes.io/storage-provisioner': '',
        'volume.kubernetes.io/storage-provisioner': 'ga.example',
      },
      'from.storage.class',
    ],
    [
      'GA key empty: the StorageClass',
      { 'volume.kubernetes.io/storage-provisioner': '' },
      'from.storage.class',
    ],
    [
      'GA key when the beta key is absent',
      { 'volume.kubernetes.io/storage-provisioner': 'ga.example' },
      'ga.example',
    ],
    ['StorageClass provisioner without annotations', {}, 'from.storage.class'],
  ];
  for (const [name, annotations, expected] of table) {
    it(name, () =>
      assert.strictEqual(resolveProvisioner(pvc('p', { annotations }), cls), expected),
    );
  }
  it('undefined without annotations and StorageClass', () =>
    assert.isUndefined(resolveProvisioner(pvc('p', { annotations: {} }), null)));
});

describe('expandDisksState', () => {
  const table: Array<[string, Parameters<typeof kubeVirt>[0], boolean]> = [
    ['listed on v1.5.2', {}, true],
    ['not listed on v1.5.2', { gates: ['LiveMigration'] }, false],
    [
      'listed and disabled on v1.8.0: listed wins',
      { disabled: ['ExpandDisks'], version: 'v1.8.0' },
      true,
    ],
    ['only disabled on v1.8.0', { gates: [], disabled: ['ExpandDisks'], version: 'v1.8.0' }, false],
    [
      'only disabled on v1.10.0: GA',
      { gates: [], disabled: ['ExpandDisks'], version: 'v1.10.0' },
      true,
    ],
    ['listed on a v1.9.0 release candidate', { version: 'v1.9.0-rc.1' }, true],
    ['not listed on a v1.9.0 release candidate', { gates: [], version: 'v1.9.0-rc.1' }, false],
    ['GA on v1.9.0', { gates: [], version: 'v1.9.0' }, true],
    ['GA on 1.9.3 without v prefix', { gates: [], version: '1.9.3' }, true],
    ['unparseable version, not listed', { gates: [], version: 'devel' }, false],
  ];
  for (const [name, options, enabled] of table)
    it(name, () => assert.strictEqual(expandDisksState(kubeVirt(options)).enabled, enabled));
  it('no configuration at all', () =>
    assert.isFalse(expandDisksState({ metadata: { name: 'kubevirt' } }).enabled));
});

describe('a provisioner annotation that disagrees with the StorageClass or the stored PVC (writable by whoever may update the PVC)', () => {
  const BETA = 'volume.beta.kubernetes.io/storage-provisioner';
  const annotate = (claim: ResizeSnapshot['pvc'], provisioner: string): ResizeSnapshot['pvc'] => ({
    ...claim,
    metadata: {
      ...claim.metadata,
      annotations: { ...claim.metadata?.annotations, [BETA]: provisioner },
    },
  });
  const provisionerFinding = (decision: ReturnType<typeof decideResize>): string =>
    decision.findings.find((f) => f.check === 'provisioner')?.message ?? '';
  const cases: Array<{
    title: string;
    snapshot: () => ResizeSnapshot;
    decision: string;
    message?: RegExp;
    finding?: RegExp;
  }> = [
    {
      title:
        'naming a validated driver in the resize itself does not get an NFS volume past the Setting',
      snapshot: () => {
        const snapshot = nfs('{"topolvm.io":true}');
        return { ...snapshot, pvc: annotate(snapshot.pvc, 'topolvm.io') };
      },
      decision: 'provisioner-not-validated',
      message:
        /^PVC_EXPAND: pvc default\/vm1-disk-0-kq8zt is not online expandable with its provider\. Provisioner nfs\.csi\.k8s\.io is not validated .* \(PVC default\/vm1-disk-0-kq8zt names provisioner topolvm\.io, but nfs\.csi\.k8s\.io is named by its StorageClass or by the PVC before this update; a growth is judged against each\)/,
    },
    {
      title:
        'nor does naming it in an update before the resize (the stored PVC names it too): the StorageClass still speaks',
      snapshot: () => {
        const snapshot = nfs('{"topolvm.io":true}');
        return {
          ...snapshot,
          oldPvc: annotate(snapshot.oldPvc!, 'topolvm.io'),
          pvc: annotate(snapshot.pvc, 'topolvm.io'),
        };
      },
      decision: 'provisioner-not-validated',
      message: /Provisioner nfs\.csi\.k8s\.io is not validated/,
    },
    {
      title:
        'an encrypted Longhorn v2 volume renamed to another driver still meets the Longhorn checks',
      snapshot: () => {
        const snapshot = longhornV2({ version: 'v1.10.1', encrypted: true });
        return {
          ...snapshot,
          expandSetting: parsed('{"topolvm.io":true}'),
          pvc: annotate(snapshot.pvc, 'topolvm.io'),
        };
      },
      decision: 'longhorn-v2-encrypted',
    },
    {
      title:
        'when every provisioner named is validated the growth is allowed, and the finding names them all',
      snapshot: () => {
        const snapshot = nfs('{"topolvm.io":true,"nfs.csi.k8s.io":true}');
        return { ...snapshot, pvc: annotate(snapshot.pvc, 'topolvm.io') };
      },
      decision: 'allowed',
      finding: /^Provisioner topolvm\.io and nfs\.csi\.k8s\.io are validated/,
    },
    {
      title: 'agreeing ones are judged once, as Harvester does',
      snapshot: () => nfs('{"nfs.csi.k8s.io":true}'),
      decision: 'allowed',
      finding:
        /^Provisioner nfs\.csi\.k8s\.io is validated in Setting csi-online-expand-validation\.$/,
    },
  ];
  for (const { title, snapshot, decision: expected, message, finding } of cases) {
    it(title, () => {
      const decision = decideResize(snapshot(), resolveAdmissionOptions());
      assert.strictEqual(decision.decision, expected, decision.message);
      assert.strictEqual(decision.allowed, expected.startsWith('allowed'), decision.message);
      if (message) assert.match(decision.message, message);
      if (finding) assert.match(provisionerFinding(decision), finding);
    });
  }
});

describe('storageGrows', () => {
  // [name, old request, new request, status.capacity (as stored), judged]
  const table: Array<
    [string, string | undefined, string | undefined, string | undefined, boolean]
  > = [
    ['10Gi -> 20Gi', '10Gi', '20Gi', '10Gi', true],
    ['10Gi -> 10Gi', '10Gi', '10Gi', '10Gi', false],
    ['10Gi -> 10737418241', '10Gi', '10737418241', '10Gi', true],
    [
      '20Gi -> 10Gi, capacity 10Gi (the API server refuses it anyway)',
      '20Gi',
      '10Gi',
      '10Gi',
      false,
    ],
    [
      '100Gi -> 20Gi, capacity 10Gi: recovering from a failed expansion, no more than is already pending: not judged',
      '100Gi',
      '20Gi',
      '10Gi',
      false,
    ],
    ['100Gi -> 20Gi, capacity 20Gi', '100Gi', '20Gi', '20Gi', false],
    ['100Gi -> 20Gi, capacity 30Gi', '100Gi', '20Gi', '30Gi', false],
    ['100Gi -> 20Gi, no capacity recorded: not judged', '100Gi', '20Gi', undefined, false],
    ['100Gi -> 20Gi, capacity unreadable: not judged', '100Gi', '20Gi', 'lots', false],
    ['no old request', undefined, '10Gi', '10Gi', false],
    ['no new request', '10Gi', undefined, '10Gi', false],
  ];
  const withRequest = (storage: string | undefined, capacity?: string) => {
    const claim = pvc('p');
    return {
      ...claim,
      spec: { ...claim.spec, resources: storage ? { requests: { storage } } : {} },
      status: {
        ...claim.status,
        capacity: capacity === undefined ? undefined : { storage: capacity },
      },
    };
  };
  for (const [name, before, after, capacity, grows] of table)
    it(name, () =>
      assert.strictEqual(
        storageGrows(withRequest(before, capacity), withRequest(after, capacity)),
        grows,
      ),
    );
  it('false without objects', () => assert.isFalse(storageGrows(null, pvc('p'))));
  it('a tiny Harvester VM template with a templateEntry parses too', () =>
    assert.ok(templateEntry('x', '1Gi').spec));
});

describe('storageRequest', () => {
  it('reads requests.storage exactly, undefined when absent', () => {
    assert.deepStrictEqual(storageRequest({ storage: '1Gi', cpu: '1' }), {
      num: 1073741824n,
      den: 1n,
    });
    assert.isUndefined(storageRequest({ cpu: '1' }));
    assert.isUndefined(storageRequest(undefined));
    expectThrow(() => storageRequest({ storage: '20 gigs' }), { code: 'KUBE_QUANTITY_INVALID' });
  });

  it("ignores white space around the quantity as Kubernetes' JSON decoding does (Go's strings.TrimSpace), and only that", () => {
    assert.deepStrictEqual(
      storageRequest({ storage: ' 20Gi' }),
      storageRequest({ storage: '20Gi' }),
    );
    assert.deepStrictEqual(
      storageRequest({ storage: '\t20Gi\n\u00a0\u0085\u3000' }),
      storageRequest({ storage: '20Gi' }),
    );
    expectThrow(
      () => storageRequest({ storage: '20 Gi' }),
      { code: 'KUBE_QUANTITY_INVALID' },
      'inside: still malformed',
    );
    expectThrow(
      () => storageRequest({ storage: '\ufeff20Gi' }),
      { code: 'KUBE_QUANTITY_INVALID' },
      'a byte order mark is no space to Go',
    );
    expectThrow(
      () => storageRequest({ storage: '  ' }),
      { code: 'KUBE_QUANTITY_INVALID' },
      'nothing left',
    );
  });
});
