/**
 * The admission test plan (docs/demo.md) through the real kube-apiserver: the API server calls voe's webhook
 * (registered by `serveWebhook` in dev mode) for PVC updates that grow the request, and the
 * webhook decides from informer caches. Peers we cannot run write what they would write:
 * the PV binder (PV + PVC Bound), KubeVirt (VM status), Longhorn (Volume, Engine, Setting).
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { SCENARIO, stageExpansionScenario } from '../../../src/demo/expansion-scenario.js';
import { KINDS, StagedCluster } from '../../../src/demo/staged-cluster.js';
import {
  longhornEngine,
  longhornVolume,
  pvc,
  templateEntry,
  vm,
  vmi,
} from '../../../src/demo/staged-objects.js';
import { eventually } from '../../support/eventually.js';
import { resizeThroughApi, type Refusal } from '../../support/webhook/resize-through-api.js';
import { serveAdmission } from '../../support/webhook/serve-admission.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const ROOT = SCENARIO.longhornV1Disk;
const V2_DISK = SCENARIO.longhornV2Disk;
const NFS_DISK = SCENARIO.nfsDisk;
const TOPOLVM_BLOCK = SCENARIO.topolvmBlockHotplug;
const TOPOLVM_FS = SCENARIO.topolvmFilesystemHotplug;
const STOPPED_DISK = SCENARIO.stoppedVmDisk;

// Storage classes, bound PVCs and PVs, VMs with their status, KubeVirt, the Setting and Longhorn's objects.
await stageExpansionScenario(cluster);

const { caches } = await serveAdmission(cp.kubeConfig, 'voe-admission-test');

/** Raises the request as a user would (merge patch through the API server); resolves with the refusal or undefined. */
const expand = (name: string, storage: string): Promise<Refusal | undefined> =>
  resizeThroughApi(cluster, name, storage);

async function requestOf(name: string): Promise<string | undefined> {
  return (await cluster.core.readNamespacedPersistentVolumeClaim({ namespace: 'default', name }))
    .spec?.resources?.requests?.['storage'];
}

/** Waits until the webhook's informer cache holds `resourceVersion` of an object (the webhook reads caches, not the API). */
async function cacheSaw(
  read: () => { metadata?: { resourceVersion?: string } } | undefined,
  resourceVersion: string | undefined,
  what: string,
): Promise<void> {
  assert.ok(resourceVersion, what);
  await eventually(() => read()?.metadata?.resourceVersion === resourceVersion, 15_000, what);
}

/** Waits until the informers saw a change (the webhook reads caches, not the API). */
const until = (check: () => Promise<boolean>, what: string): Promise<void> =>
  eventually(check, 15_000, what);

describe('PVC resizes through the API server and the admission webhook', () => {
  describe('the admission test plan through the API server', () => {
    it('1. Longhorn v1 Block root disk of a running VM: allowed', async () => {
      assert.isUndefined(await expand(ROOT, '20Gi'));
      assert.strictEqual(await requestOf(ROOT), '20Gi');
    });

    it('2. Longhorn v2 root disk: refused on Longhorn v1.9.1 (policy auto), allowed once Longhorn is v1.10.1', async () => {
      const refused = await expand(V2_DISK, '20Gi');
      assert.strictEqual(refused?.code, 422);
      assert.match(
        refused?.message ?? '',
        /denied the request: PVC_EXPAND: pvc default\/vm2-disk-0-v2abc is not online expandable with its provider\./,
      );
      assert.strictEqual(await requestOf(V2_DISK), '10Gi');
      await cluster.patchCustom(
        KINDS.longhornSettings,
        'current-longhorn-version',
        { value: 'v1.10.1' },
        'longhorn-system',
      );
      await until(
        async () => (await expand(V2_DISK, '20Gi')) === undefined,
        'v2 expansion allowed',
      );
      assert.strictEqual(await requestOf(V2_DISK), '20Gi');
    });

    it('3. NFS Filesystem root disk: refused, then allowed after the Setting lists nfs.csi.k8s.io', async () => {
      const refused = await expand(NFS_DISK, '20Gi');
      assert.strictEqual(refused?.code, 422);
      assert.match(
        refused?.message ?? '',
        /PVC_EXPAND: pvc default\/vm3-disk-0-nfs01 is not online expandable with its provider\. Provisioner nfs\.csi\.k8s\.io/,
      );
      // Naming a validated driver (Longhorn's) in the PVC's provisioner annotation, in the resize
      // itself or in an update before it, does not get the NFS volume past the Setting.
      const BETA = 'volume.beta.kubernetes.io/storage-provisioner';
      const patch = (body: object) =>
        cluster.core.patchNamespacedPersistentVolumeClaim(
          { namespace: 'default', name: NFS_DISK, body },
          MERGE,
        );
      await expectRejection(
        patch({
          metadata: { annotations: { [BETA]: 'driver.longhorn.io' } },
          spec: { resources: { requests: { storage: '20Gi' } } },
        }),
        (error: unknown) => {
          assert.match(
            String((error as { body?: unknown }).body),
            /Provisioner nfs\.csi\.k8s\.io is not validated/,
          );
          return true;
        },
      );
      await patch({ metadata: { annotations: { [BETA]: 'driver.longhorn.io' } } });
      const renamed = await expand(NFS_DISK, '20Gi');
      assert.strictEqual(
        renamed?.code,
        422,
        'a growth after the annotation was changed alone is still judged against the StorageClass',
      );
      assert.match(
        renamed?.message ?? '',
        /Provisioner nfs\.csi\.k8s\.io is not validated .*names provisioner driver\.longhorn\.io, but nfs\.csi\.k8s\.io is named by its StorageClass/,
      );
      assert.strictEqual(await requestOf(NFS_DISK), '10Gi');
      await patch({ metadata: { annotations: { [BETA]: 'nfs.csi.k8s.io' } } });
      await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', {
        value: '{"nfs.csi.k8s.io":true}',
      });
      await until(
        async () => (await expand(NFS_DISK, '20Gi')) === undefined,
        'NFS expansion allowed',
      );
      assert.strictEqual(await requestOf(NFS_DISK), '20Gi');
    });

    it('4. TopoLVM PVC hotplugged in Block mode: allowed once topolvm.io is validated', async () => {
      assert.match(
        (await expand(TOPOLVM_BLOCK, '20Gi'))?.message ?? '',
        /is not online expandable with its provider/,
      );
      await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', {
        value: '{"nfs.csi.k8s.io":true, "topolvm.io":true}',
      });
      await until(
        async () => (await expand(TOPOLVM_BLOCK, '20Gi')) === undefined,
        'TopoLVM block expansion allowed',
      );
    });

    it('5. hotplugged Filesystem PVC: refused even with the driver validated', async () => {
      const refused = await expand(TOPOLVM_FS, '20Gi');
      assert.strictEqual(refused?.code, 422);
      assert.match(
        refused?.message ?? '',
        /PVC_EXPAND: Expansion of hotplugged PVC 'default\/data-topolvm-fs' in filesystem mode is not supported\./,
      );
      // The status details reach the client as Harvester's webhook sends them: one FieldValueInvalid cause.
      assert.strictEqual(refused?.causes?.length, 1);
      assert.strictEqual(refused?.causes?.[0]?.reason, 'FieldValueInvalid');
      assert.strictEqual(refused?.causes?.[0]?.field, 'spec.resources.requests.storage');
      assert.match(refused?.causes?.[0]?.message ?? '', /^PVC_EXPAND: Expansion of hotplugged PVC/);
    });

    it('6. stopped VM: allowed (offline) even for an unvalidated driver', async () => {
      const version = await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', {
        value: '',
      });
      await cacheSaw(
        () => caches.caches.admission.settings.get(undefined, 'csi-online-expand-validation'),
        version,
        'Setting emptied',
      );
      assert.match(
        (await expand(TOPOLVM_BLOCK, '30Gi'))?.message ?? '',
        /is not online expandable with its provider/,
      );
      assert.isUndefined(await expand(STOPPED_DISK, '20Gi'));
    });

    it('7. ExpandDisks missing: refused; 8. KubeVirt v1.9.0 without the gate listed: allowed', async () => {
      const version = await cluster.patchCustom(
        KINDS.kubeVirts,
        'kubevirt',
        {
          spec: {
            configuration: {
              developerConfiguration: { featureGates: ['LiveMigration', 'HotplugVolumes'] },
            },
          },
        },
        'harvester-system',
      );
      await cacheSaw(
        () => caches.caches.admission.kubeVirts.get('harvester-system', 'kubevirt'),
        version,
        'gate removed',
      );
      assert.match(
        (await expand(ROOT, '30Gi'))?.message ?? '',
        /PVC_EXPAND: kubevirt ExpandDisks not included in featureGate\./,
      );
      assert.strictEqual(await requestOf(ROOT), '20Gi');
      await cluster.patchCustomStatus(
        KINDS.kubeVirts,
        'kubevirt',
        { observedKubeVirtVersion: 'v1.9.0', targetKubeVirtVersion: 'v1.9.0' },
        'harvester-system',
      );
      await until(
        async () => (await expand(ROOT, '30Gi')) === undefined,
        'allowed on KubeVirt v1.9.0',
      );
      assert.strictEqual(await requestOf(ROOT), '30Gi');
    });

    it('the caches were synced before registration', () => {
      assert.isTrue(caches.ready());
    });
  });

  describe('a statically provisioned Longhorn PV through the API server', () => {
    // A PV made by hand for an existing Longhorn volume: PV "manual-pv", volumeHandle "manual-volume".
    // Longhorn records the PV in the Volume's status.kubernetesStatus.pvName; its Engine carries the volume's name.
    const CLAIM = 'vm6-disk-0-static';

    it('is judged by the Longhorn Volume that records the PV, and refused as an internal error when none does', async () => {
      const claim = pvc(CLAIM, { volumeName: 'manual-pv' });
      await cluster.apply({
        pvcs: [claim],
        vms: [
          vm('vm6', {
            volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: CLAIM } }],
            templates: [],
          }),
        ],
        longhornVolumes: [
          longhornVolume({
            name: 'manual-volume',
            pvName: 'manual-pv',
            dataEngine: 'v2',
            encrypted: true,
          }),
        ],
        longhornEngines: [longhornEngine({ volume: 'manual-volume', dataEngine: 'v2' })],
      });
      await cluster.bindClaims([claim], { 'manual-pv': 'manual-volume' });
      let refused: Refusal | undefined;
      await until(
        async () => (refused = await expand(CLAIM, '20Gi'))?.code === 422,
        'refused from the Volume CR',
      );
      assert.match(
        refused?.message ?? '',
        /PVC_EXPAND: pvc default\/vm6-disk-0-static is not online expandable with its provider\. It is an encrypted Longhorn v2 volume \(Volume CR\)/,
      );

      const lh = {
        group: KINDS.longhornVolumes.group,
        version: KINDS.longhornVolumes.version,
        namespace: 'longhorn-system',
      };
      await cluster.custom.deleteNamespacedCustomObject({
        ...lh,
        plural: KINDS.longhornVolumes.plural,
        name: 'manual-volume',
      });
      await cluster.custom.deleteNamespacedCustomObject({
        ...lh,
        plural: KINDS.longhornEngines.plural,
        name: 'manual-volume-e-0',
      });
      await until(
        async () => (refused = await expand(CLAIM, '20Gi'))?.code === 500,
        'an internal error once no Longhorn object records the PV',
      );
      assert.match(
        refused?.message ?? '',
        /internal error: the data engine of PVC default\/vm6-disk-0-static cannot be determined: no Longhorn Volume in longhorn-system is named manual-pv or records PV manual-pv/,
      );
      assert.strictEqual(await requestOf(CLAIM), '10Gi');
    });
  });

  describe('a PVC whose class only the beta storage-class annotation names, through the API server', () => {
    const CLAIM = 'vm7-disk-0-annotated';

    it("is judged against that class's provisioner too, after its provisioner annotation was rewritten to a validated driver", async () => {
      // The API server's resize admission reads the class from the annotation (GetPersistentVolumeClaimClass);
      // Harvester's rule reads spec.storageClassName, which is empty here.
      const staged = pvc(CLAIM, {
        provisioner: 'nfs.csi.k8s.io',
        volumeMode: 'Filesystem',
        volumeName: 'pv-vm7-annotated',
      });
      const annotations = {
        ...staged.metadata?.annotations,
        'volume.beta.kubernetes.io/storage-class': 'nfs-csi',
      };
      const claim = {
        ...staged,
        metadata: { ...staged.metadata, annotations },
        spec: { ...staged.spec, storageClassName: undefined },
      };
      await cluster.apply({
        pvcs: [claim],
        vms: [
          vm('vm7', {
            volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: CLAIM } }],
            templates: [],
          }),
        ],
      });
      await cluster.bindClaims([claim]);
      const version = await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', {
        value: '{"topolvm.io":true}',
      });
      await cacheSaw(
        () => caches.caches.admission.settings.get(undefined, 'csi-online-expand-validation'),
        version,
        'topolvm.io validated',
      );
      const BETA = 'volume.beta.kubernetes.io/storage-provisioner';
      const GA = 'volume.kubernetes.io/storage-provisioner';
      await cluster.core.patchNamespacedPersistentVolumeClaim(
        {
          namespace: 'default',
          name: CLAIM,
          body: { metadata: { annotations: { [BETA]: 'topolvm.io', [GA]: 'topolvm.io' } } },
        },
        MERGE,
      );
      // The API server hands the webhook both objects as stored and as patched: no cache to wait for.
      const refused = await expand(CLAIM, '20Gi');
      assert.strictEqual(
        refused?.code,
        422,
        `the NFS volume grew under its running VM: ${JSON.stringify(refused)}`,
      );
      assert.match(
        refused?.message ?? '',
        /Provisioner nfs\.csi\.k8s\.io is not validated .*names provisioner topolvm\.io, but nfs\.csi\.k8s\.io is named by its StorageClass/,
      );
      assert.strictEqual(await requestOf(CLAIM), '10Gi');
      await cluster.patchCustom(KINDS.settings, 'csi-online-expand-validation', { value: '' });
    });
  });

  describe('volumes only a running VMI has (virtctl addvolume without --persist), through the API server', () => {
    // vm8 runs with its root disk in its spec; its VMI also has two TopoLVM volumes hotplugged with
    // virtctl addvolume without --persist, which writes the VMI's spec only (hotpluggable: true, and
    // virt-controller's volumeStatus with the hp-volume pod). Harvester reads VM specs only: it would
    // allow both growths as offline ones. The Setting validates nothing but Longhorn here.
    const FS = 'data-vmi-only-fs';
    const BLOCK = 'data-vmi-only-block';
    const root = { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm8-disk-0-root8' } };
    const hotplugged = (claimName: string) => ({
      name: claimName,
      persistentVolumeClaim: { claimName, hotpluggable: true },
    });
    const claims = [
      pvc(FS, {
        provisioner: 'topolvm.io',
        className: 'topolvm-provisioner',
        volumeMode: 'Filesystem',
        volumeName: `pvc-${FS}`,
      }),
      pvc(BLOCK, {
        provisioner: 'topolvm.io',
        className: 'topolvm-provisioner',
        volumeMode: 'Block',
        volumeName: `pvc-${BLOCK}`,
      }),
    ];

    it('a hotplugged Filesystem PVC on the VMI only is refused, naming the VM and advising --persist; a Block one meets the provider check', async () => {
      await cluster.apply({
        pvcs: claims,
        vms: [vm('vm8', { volumes: [root], templates: [] })],
        vmis: [vmi('vm8', { volumes: [root, hotplugged(FS), hotplugged(BLOCK)] })],
      });
      await cluster.bindClaims(claims);
      let refused: Refusal | undefined;
      await until(
        async () => (refused = await expand(FS, '20Gi'))?.code === 422,
        'the VMI-only Filesystem hotplug refused',
      );
      assert.strictEqual(
        refused?.message,
        `admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: PVC_EXPAND: Expansion of hotplugged PVC 'default/${FS}' ` +
          'in filesystem mode is not supported. It is hotplugged into default/vm8 (found on the running VirtualMachineInstance only, not in the ' +
          "VM's spec: VM default/vm8; hotplugged with virtctl addvolume without --persist, or removed from the spec while the VM runs), and a " +
          'hotplugged Filesystem volume may no longer be mounted by any hotplug pod, so it would never grow inside the VM. Use a Block-mode volume ' +
          "for hotplug (added with virtctl addvolume --persist, so that the VM's spec names it), or stop VM default/vm8 and expand offline.",
      );
      assert.strictEqual(refused?.causes?.[0]?.reason, 'FieldValueInvalid');
      const provider = await expand(BLOCK, '20Gi');
      assert.strictEqual(provider?.code, 422, 'the provider check of a running VM ran');
      assert.match(
        provider?.message ?? '',
        /PVC_EXPAND: pvc default\/data-vmi-only-block is not online expandable with its provider\. Provisioner topolvm\.io .* stop VM default\/vm8 and expand offline\.$/,
      );
      assert.strictEqual(await requestOf(FS), '10Gi');
      assert.strictEqual(await requestOf(BLOCK), '10Gi');
    });

    it("persisted into the VM's spec (as --persist does), it is refused exactly as Harvester refuses it", async () => {
      const version = await cluster.patchCustom(KINDS.vms, 'vm8', {
        spec: { template: { spec: { volumes: [root, hotplugged(FS), hotplugged(BLOCK)] } } },
      });
      await cacheSaw(
        () => caches.caches.admission.vms.get('default', 'vm8'),
        version,
        'the persisted volumes cached',
      );
      const refused = await expand(FS, '20Gi');
      assert.strictEqual(
        refused?.message,
        `admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: PVC_EXPAND: Expansion of hotplugged PVC 'default/${FS}' ` +
          'in filesystem mode is not supported. It is hotplugged into default/vm8, and a hotplugged Filesystem volume may no longer be mounted by ' +
          'any hotplug pod, so it would never grow inside the VM. Use a Block-mode volume for hotplug, or stop VM default/vm8 and expand offline.',
      );
      // The volumes are persisted: taken out of the spec again (virtctl removevolume), the running VMI still has them.
      const removed = await cluster.patchCustom(KINDS.vms, 'vm8', {
        spec: { template: { spec: { volumes: [root] } } },
      });
      await cacheSaw(
        () => caches.caches.admission.vms.get('default', 'vm8'),
        removed,
        "the volumes out of the VM's spec",
      );
      assert.match(
        (await expand(FS, '20Gi'))?.message ?? '',
        /found on the running VirtualMachineInstance only/,
      );
    });

    it('once the VM stopped and its VMI finished, the growth is offline: allowed', async () => {
      await cluster.patchCustomStatus(KINDS.vms, 'vm8', {
        printableStatus: 'Stopped',
        ready: false,
      });
      const version = await cluster.patchCustomStatus(
        KINDS.vmis,
        'vm8',
        { phase: 'Succeeded' },
        'default',
      );
      await cacheSaw(
        () => caches.caches.admission.vmis.get('default', 'vm8'),
        version,
        'the VMI finished',
      );
      await until(async () => (await expand(FS, '20Gi')) === undefined, 'allowed offline');
      assert.isUndefined(await expand(BLOCK, '20Gi'));
      assert.strictEqual(await requestOf(FS), '20Gi');
    });

    it('the VMI cache holds the VMI lean', () => {
      const cached = caches.caches.admission.vmis.get('default', 'vm8');
      assert.deepStrictEqual(Object.keys(cached?.status ?? {}).sort(), ['phase', 'volumeStatus']);
      assert.deepStrictEqual(
        cached?.status?.volumeStatus?.map((status) => status.name),
        [FS, BLOCK],
        'the hotplugged ones',
      );
      assert.strictEqual(cached?.metadata?.ownerReferences?.[0]?.name, 'vm8');
      assert.isUndefined(
        (cached as { metadata?: { managedFields?: unknown } } | undefined)?.metadata?.managedFields,
      );
    });
  });

  describe('VM and Setting paths through the API server', () => {
    const messageOf = (error: { body?: unknown } | undefined) =>
      (JSON.parse(String(error?.body)) as { message: string }).message;
    const templates = (storage: string) => JSON.stringify([templateEntry(ROOT, storage)]);

    it('a smaller volumeClaimTemplates size is refused; a larger one is judged against the live PVC', async () => {
      const refused = await cluster
        .patchCustom(KINDS.vms, 'vm1', {
          metadata: { annotations: { 'harvesterhci.io/volumeClaimTemplates': templates('5Gi') } },
        })
        .then(
          () => undefined,
          (error: { code?: number; body?: unknown }) => error,
        );
      assert.strictEqual(refused?.code, 422);
      assert.match(
        messageOf(refused),
        /PVC_EXPAND: requests storage can't be less than previous value\./,
      );
      await cluster.patchCustom(KINDS.vms, 'vm1', {
        metadata: { annotations: { 'harvesterhci.io/volumeClaimTemplates': templates('40Gi') } },
      });
    });

    it('a storage class change in volumeClaimTemplates is refused', async () => {
      const refused = await cluster
        .patchCustom(KINDS.vms, 'vm1', {
          metadata: {
            annotations: {
              'harvesterhci.io/volumeClaimTemplates': JSON.stringify([
                templateEntry(ROOT, '40Gi', 'nfs-csi'),
              ]),
            },
          },
        })
        .then(
          () => undefined,
          (error: { code?: number; body?: unknown }) => error,
        );
      assert.strictEqual(refused?.code, 422);
      assert.match(
        messageOf(refused),
        /PVC_EXPAND: storageClassName of volume claim template vm1-disk-0-kq8zt of VM default\/vm1 can't be changed \(from longhorn-image-7r2k9 to nfs-csi\)/,
      );
    });

    it('volumeClaimTemplates sizes are read from their raw JSON text, as Harvester reads them: escapes refused, numbers exact', async () => {
      /** The annotation with the storage request written as the raw JSON text `raw`. */
      const rawTemplates = (raw: string) =>
        JSON.stringify([templateEntry(ROOT, '@@')]).replace('"@@"', raw);
      const patchRaw = (raw: string) =>
        cluster
          .patchCustom(KINDS.vms, 'vm1', {
            metadata: {
              annotations: { 'harvesterhci.io/volumeClaimTemplates': rawTemplates(raw) },
            },
          })
          .then(
            () => undefined,
            (error: { code?: number; body?: unknown }) => error,
          );
      for (const raw of ['"\\t41Gi"', '"41Gi\\n"', '"\\u0034\\u0031Gi"', '"\\u00a041Gi"']) {
        const refused = await patchRaw(raw);
        assert.strictEqual(refused?.code, 422, raw);
        assert.match(
          messageOf(refused),
          /PVC_EXPAND: volume claim template vm1-disk-0-kq8zt of VM default\/vm1 has an invalid storage request: the size .* contains a JSON escape sequence/,
        );
      }
      const strange = await patchRaw('"\ufeff41Gi"');
      assert.strictEqual(strange?.code, 422);
      assert.match(
        messageOf(strange),
        /contains characters a Kubernetes quantity cannot hold \(U\+FEFF\)/,
      );
      // 40Gi and a hair, as a JSON number: a growth for Go (judged and allowed), not 40Gi (JSON.parse's double) ...
      assert.isUndefined(await patchRaw('42949672960.000000000001'));
      // ... so back to 40Gi is a shrink.
      const shrink = await patchRaw('"\u00a040Gi"');
      assert.strictEqual(shrink?.code, 422);
      assert.match(
        messageOf(shrink),
        /PVC_EXPAND: requests storage can't be less than previous value\./,
      );
      assert.isUndefined(
        await patchRaw('"\u00a041Gi\u0085"'),
        'literal Go white space around the size is ignored, as Harvester ignores it',
      );
    });

    it("a PVC request with any exponent the API server stores is judged (1e102), one beyond voe's bound refused with 422, never a 500 (dry run)", async () => {
      const answer = (storage: string) =>
        cluster.core
          .patchNamespacedPersistentVolumeClaim(
            {
              namespace: 'default',
              name: ROOT,
              body: { spec: { resources: { requests: { storage } } } },
              dryRun: 'All',
            },
            MERGE,
          )
          .then(
            () => ({ code: 200, message: '' }),
            (error: { code?: number; body?: unknown }) => ({
              code: error.code,
              message: messageOf(error),
            }),
          );
      for (const storage of ['1e101', '1e102', '100e100']) {
        const { code, message } = await answer(storage);
        assert.ok(
          code === 200 || (code === 422 && message.includes('PVC_EXPAND: ')),
          `${storage}: ${code} ${message}`,
        );
      }
      const beyond = await answer('1e1000');
      assert.strictEqual(beyond.code, 422);
      assert.match(
        beyond.message,
        /PVC_EXPAND: the new storage request of PVC default\/vm1-disk-0-kq8zt cannot be judged: Kubernetes quantity "(1e1000|10e999)" is 1e1000 or more/,
      );
      assert.strictEqual(await requestOf(ROOT), '30Gi');
    });

    it('a larger volumeClaimTemplates size is refused when resizing the live PVC would be', async () => {
      // KubeVirt reports v1.8 again and ExpandDisks is not in featureGates (step 7): the live PVC's resize is refused.
      await cluster.patchCustomStatus(
        KINDS.kubeVirts,
        'kubevirt',
        { observedKubeVirtVersion: 'v1.8.1', targetKubeVirtVersion: 'v1.8.1' },
        'harvester-system',
      );
      let refused: { code?: number; body?: unknown } | undefined;
      let size = 50; // a new size each try, so every patch changes the annotation until the caches saw v1.8.1
      await until(async () => {
        size += 1;
        refused = await cluster
          .patchCustom(KINDS.vms, 'vm1', {
            metadata: {
              annotations: { 'harvesterhci.io/volumeClaimTemplates': templates(`${size}Gi`) },
            },
          })
          .then(
            () => undefined,
            (error: { code?: number; body?: unknown }) => error,
          );
        return refused !== undefined;
      }, 'VM-page growth refused on KubeVirt v1.8.1');
      assert.strictEqual(refused?.code, 422);
      assert.match(
        messageOf(refused),
        /PVC_EXPAND: kubevirt ExpandDisks not included in featureGate\./,
      );
      assert.strictEqual(await requestOf(ROOT), '30Gi');
      await cluster.patchCustomStatus(
        KINDS.kubeVirts,
        'kubevirt',
        { observedKubeVirtVersion: 'v1.9.0', targetKubeVirtVersion: 'v1.9.0' },
        'harvester-system',
      );
    });

    it('the Setting must stay a JSON object of booleans and keep Longhorn enabled', async () => {
      for (const [value, pattern] of [
        ['{"nfs.csi.k8s.io":"yes"}', /SETTING_INVALID_VALUE/],
        ['{"nfs.csi.k8s.io":true', /SETTING_INVALID_JSON/],
        ['{"driver.longhorn.io":false}', /sets "driver\.longhorn\.io" to false/],
      ] as const) {
        const refused = await cluster
          .patchCustom(KINDS.settings, 'csi-online-expand-validation', { value })
          .then(
            () => undefined,
            (error: { code?: number; body?: unknown }) => error,
          );
        assert.strictEqual(refused?.code, 422, value);
        assert.match(messageOf(refused), pattern);
      }
      // Admitted with a warning the client receives: this cluster has no CSIDriver named nfs.csi.k8s.io.
      const admitted = await cluster.custom.patchClusterCustomObjectWithHttpInfo(
        {
          group: KINDS.settings.group,
          version: KINDS.settings.version,
          plural: KINDS.settings.plural,
          name: 'csi-online-expand-validation',
          body: { value: '{"nfs.csi.k8s.io":true}' },
        },
        MERGE,
      );
      assert.strictEqual(admitted.httpStatusCode, 200);
      assert.match(
        admitted.headers['warning'] ?? '',
        /no CSIDriver named \\?"nfs\.csi\.k8s\.io\\?" exists; check the driver name \(accepted anyway\)/,
      );
    });
  });
});
