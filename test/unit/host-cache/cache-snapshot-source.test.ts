import { describe, it } from 'mocha';
import { assert } from 'chai';
import { resolveAdmissionOptions } from '../../../src/admission/admission-options.js';
import { assembleResizeSnapshot } from '../../../src/admission/assemble-resize-snapshot.js';
import {
  createCacheSnapshotSource,
  type AdmissionCaches,
} from '../../../src/host-cache/cache-snapshot-source.js';
import { MemoryCache } from '../../../src/host-cache/memory-cache.js';
import { createAdmissionValidators } from '../../../src/webhook/create-admission-validators.js';
import {
  admissionRequest,
  csiDriver,
  PVC_KIND,
  PVC_RESOURCE,
  SETTING_KIND,
  SETTING_RESOURCE,
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornImageClass,
  longhornVersion,
  longhornVolume,
  pvc,
  PV_NAME,
  resized,
  storageClass,
  templateEntry,
  vm,
  vmi,
} from '../../support/webhook/admission-objects.js';
import { memorySource } from '../../support/webhook/admission-caches.js';
import { buildAdmissionCaches } from '../../../src/host-cache/build-admission-caches.js';

const ROOT = 'vm1-disk-0-kq8zt';

describe('createCacheSnapshotSource', () => {
  it('finds VMs by template volume, dataVolume and volumeClaimTemplates, only in the PVC namespace', () => {
    const { source } = memorySource({
      vms: [
        vm('vm1'),
        vm('vm2', { volumes: [{ name: 'dv', dataVolume: { name: ROOT } }], templates: [] }),
        vm('vm3', { volumes: [], templates: [templateEntry(ROOT, '10Gi')] }),
        vm('vm4', { namespace: 'other' }),
        vm('vm5'),
      ],
    });
    const names = source
      .vmsUsingPvc('default', ROOT)
      .map((machine) => machine.metadata?.name)
      .sort();
    assert.deepStrictEqual(names, ['vm1', 'vm2', 'vm3']);
    assert.deepStrictEqual(source.vmsUsingPvc('default', 'nothing'), []);
  });

  it('finds VMIs by spec volume, dataVolume and volumeStatus claim, only in the PVC namespace, running or not', () => {
    const unplugging = vmi('vm3', {
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: ROOT, hotpluggable: true } }],
    });
    unplugging.spec!.volumes = [];
    const { source } = memorySource({
      vmis: [
        vmi('vm1'),
        vmi('vm2', {
          volumes: [{ name: 'dv', dataVolume: { name: ROOT, hotpluggable: true } }],
          phase: 'Succeeded',
        }),
        unplugging,
        vmi('vm4', { namespace: 'other' }),
        vmi('vm5'),
      ],
    });
    assert.deepStrictEqual(
      source
        .vmisUsingPvc('default', ROOT)
        .map((instance) => instance.metadata?.name)
        .sort(),
      ['vm1', 'vm2', 'vm3'],
    );
    assert.deepStrictEqual(source.vmisUsingPvc('default', 'nothing'), []);
  });

  it('reads the KubeVirt CR at the configured location only', () => {
    const upstream = { ...kubeVirt(), metadata: { name: 'kubevirt', namespace: 'kubevirt' } };
    assert.isUndefined(memorySource({ kubeVirts: [upstream] }).source.getKubeVirt());
    assert.strictEqual(
      memorySource(
        { kubeVirts: [upstream] },
        { kubeVirtNamespace: 'kubevirt' },
      ).source.getKubeVirt(),
      upstream,
    );
  });

  it('reads Longhorn objects in the Longhorn namespace, engines by label', () => {
    const stray = {
      ...longhornEngine({ index: 7 }),
      metadata: { ...longhornEngine().metadata, name: 'stray', namespace: 'elsewhere' },
    };
    const { source } = memorySource({
      longhornVolumes: [longhornVolume()],
      longhornEngines: [
        longhornEngine(),
        longhornEngine({ index: 1 }),
        longhornEngine({ volume: 'pvc-other' }),
        stray,
      ],
      longhornSettings: [longhornVersion('v1.10.1')],
    });
    assert.strictEqual(source.getLonghornVolume(PV_NAME)?.spec?.dataEngine, 'v1');
    assert.deepStrictEqual(
      source
        .getLonghornEngines(PV_NAME)
        .map((engine) => engine.metadata?.name)
        .sort(),
      [`${PV_NAME}-e-0`, `${PV_NAME}-e-1`],
    );
    assert.strictEqual(source.getLonghornSetting('current-longhorn-version')?.value, 'v1.10.1');
  });

  it('is synced only when every cache is', () => {
    const { caches, source } = memorySource({});
    assert.isTrue(source.synced());
    caches.longhornEngines.setSynced(false);
    assert.isFalse(source.synced());
  });

  it('works without Longhorn caches (no Longhorn installed)', () => {
    const options = resolveAdmissionOptions();
    const caches: AdmissionCaches = {
      pvcs: new MemoryCache(),
      storageClasses: new MemoryCache(),
      vms: new MemoryCache([], { indexers: { 'vms-by-pvc': () => [] } }),
      vmis: new MemoryCache([], { indexers: { 'vmis-by-pvc': () => [] } }),
      kubeVirts: new MemoryCache(),
      settings: new MemoryCache(),
    };
    const source = createCacheSnapshotSource(caches, options);
    assert.isTrue(source.synced());
    assert.deepStrictEqual(source.getLonghornEngines(PV_NAME), []);
    assert.isUndefined(source.getLonghornVolume(PV_NAME));
    assert.isFalse(source.readsLonghorn);
    assert.isTrue(
      memorySource({}).source.readsLonghorn,
      'Longhorn caches present, even empty: read',
    );
  });

  it('Longhorn caches of a resource the cluster does not serve (--longhorn on before Longhorn is installed) count as not read', () => {
    const { caches, options } = memorySource({});
    const notServed = Object.assign(
      Object.create(caches.longhornVolumes) as typeof caches.longhornVolumes,
      { served: false },
    );
    const source = createCacheSnapshotSource(
      { ...caches, longhornVolumes: notServed } as AdmissionCaches,
      options,
    );
    assert.isFalse(source.readsLonghorn);
    const claim = pvc(ROOT);
    assert.deepStrictEqual(
      assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options).longhorn,
      { volume: null, engines: [], read: false },
    );
  });

  it('Longhorn caches that come and go while serving (--longhorn auto) are looked up at each call, not kept from the start', () => {
    const { caches, options } = memorySource({
      longhornVolumes: [longhornVolume()],
      longhornSettings: [longhornVersion('v1.10.1')],
    });
    let read = false;
    const changing = { ...caches } as AdmissionCaches;
    for (const key of ['longhornVolumes', 'longhornEngines', 'longhornSettings'] as const) {
      Object.defineProperty(changing, key, {
        enumerable: true,
        get: () => (read ? caches[key] : undefined),
      });
    }
    const source = createCacheSnapshotSource(changing, options);
    assert.isFalse(source.readsLonghorn);
    assert.isUndefined(source.getLonghornVolume(PV_NAME));
    assert.isTrue(source.synced());
    read = true;
    assert.isTrue(source.readsLonghorn);
    assert.strictEqual(source.getLonghornVolume(PV_NAME)?.spec?.dataEngine, 'v1');
    assert.strictEqual(source.getLonghornSetting('current-longhorn-version')?.value, 'v1.10.1');
    caches.longhornEngines.setOutOfSync({ since: 0, why: '403 Forbidden' });
    assert.isFalse(source.synced(), 'once read, they count like the others');
    assert.deepStrictEqual(source.outOfSync(), [
      'engines.longhorn.io (since 1970-01-01T00:00:00.000Z: 403 Forbidden)',
    ]);
    read = false;
    assert.isTrue(source.synced());
    assert.deepStrictEqual(source.outOfSync(), []);
  });

  it('voe check --longhorn off builds no Longhorn caches, so its source reads none', () => {
    const objects = {
      pvcs: [],
      storageClasses: [],
      vms: [],
      vmis: [],
      kubeVirt: undefined,
      setting: undefined,
      longhornVolumes: [],
      longhornEngines: [],
      longhornSetting: longhornVersion('v1.10.1'),
    };
    const options = resolveAdmissionOptions();
    const off = buildAdmissionCaches(objects, { longhorn: false });
    assert.deepStrictEqual(
      Object.keys(off).filter((key) => key.startsWith('longhorn')),
      [],
    );
    assert.isFalse(createCacheSnapshotSource(off, options).readsLonghorn);
    const on = createCacheSnapshotSource(buildAdmissionCaches(objects), options);
    assert.isTrue(on.readsLonghorn);
    assert.strictEqual(on.getLonghornSetting('current-longhorn-version')?.value, 'v1.10.1');
  });
});

describe('assembleResizeSnapshot', () => {
  const claim = pvc(ROOT);
  const state = {
    pvcs: [claim],
    storageClasses: [longhornImageClass(), storageClass('nfs-csi', 'nfs.csi.k8s.io')],
    vms: [vm('vm1')],
    kubeVirts: [kubeVirt()],
    settings: [harvesterSetting('{"nfs.csi.k8s.io":true}')],
    longhornVolumes: [longhornVolume()],
    longhornEngines: [longhornEngine()],
    longhornSettings: [longhornVersion('v1.9.1')],
  };

  it('collects everything for a Longhorn PVC', () => {
    const { source, options } = memorySource(state);
    const snapshot = assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options);
    assert.strictEqual(snapshot.storageClass?.metadata?.name, 'longhorn-image-7r2k9');
    assert.deepStrictEqual(
      snapshot.vms.map((machine) => machine.metadata?.name),
      ['vm1'],
    );
    assert.deepStrictEqual(snapshot.vmis, []);
    assert.strictEqual(snapshot.kubeVirt?.metadata?.name, 'kubevirt');
    assert.strictEqual(snapshot.expandSetting.state, 'parsed');
    assert.strictEqual(snapshot.longhorn?.volume?.metadata?.name, PV_NAME);
    assert.strictEqual(snapshot.longhorn?.engines?.length, 1);
    assert.strictEqual(snapshot.longhorn?.version, 'v1.9.1');
  });

  it('collects the VMIs naming the PVC, with those of VMs whose spec does not (hotplugged without --persist)', () => {
    const hotplugged = vmi('vm2', {
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: ROOT, hotpluggable: true } }],
    });
    const { source, options } = memorySource({
      ...state,
      vmis: [vmi('vm1'), hotplugged, vmi('vm9', { volumes: [] })],
    });
    const snapshot = assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options);
    assert.deepStrictEqual(
      snapshot.vms.map((machine) => machine.metadata?.name),
      ['vm1'],
    );
    assert.deepStrictEqual(snapshot.vmis?.map((instance) => instance.metadata?.name).sort(), [
      'vm1',
      'vm2',
    ]);
  });

  it("voe check's in-memory caches hold VMIs lean, as voe serve's informer does", () => {
    const caches = buildAdmissionCaches({
      pvcs: [],
      storageClasses: [],
      vms: [],
      vmis: [vmi('vm1')],
      kubeVirt: undefined,
      setting: undefined,
      longhornVolumes: [],
      longhornEngines: [],
      longhornSetting: undefined,
    });
    const cached = caches.vmis.get('default', 'vm1');
    assert.deepStrictEqual(Object.keys(cached ?? {}).sort(), ['metadata', 'spec', 'status']);
    assert.deepStrictEqual(
      Object.keys(cached?.status ?? {}),
      ['phase'],
      'nothing in volumeStatus the spec does not say',
    );
    assert.deepStrictEqual(
      createCacheSnapshotSource(caches, resolveAdmissionOptions()).vmisUsingPvc('default', ROOT),
      [cached],
    );
  });

  it('tells a Longhorn version Setting without a value ("") from a missing one (undefined)', () => {
    const empty = memorySource({
      ...state,
      longhornSettings: [{ ...longhornVersion('v1.9.1'), value: undefined }],
    });
    assert.strictEqual(
      assembleResizeSnapshot(empty.source, claim, resized(claim, '20Gi'), empty.options).longhorn
        ?.version,
      '',
    );
    const missing = memorySource({ ...state, longhornSettings: [] });
    assert.isUndefined(
      assembleResizeSnapshot(missing.source, claim, resized(claim, '20Gi'), missing.options)
        .longhorn?.version,
    );
  });

  it("finds a statically provisioned PV's Volume by the PV Longhorn records, and its Engines by the volume's name", () => {
    // A PV made for an existing Longhorn volume: volumeHandle "manual-volume", PV name "manual-pv".
    const claim = { ...pvc(ROOT), spec: { ...pvc(ROOT).spec, volumeName: 'manual-pv' } };
    const volume = longhornVolume({ name: 'manual-volume', pvName: 'manual-pv', dataEngine: 'v2' });
    const { source, options } = memorySource({
      ...state,
      pvcs: [claim],
      longhornVolumes: [volume, longhornVolume({ name: 'other', pvName: 'other-pv' })],
      longhornEngines: [
        longhornEngine({ volume: 'manual-volume', dataEngine: 'v2' }),
        longhornEngine({ volume: 'manual-pv' }),
      ],
    });
    const snapshot = assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options);
    assert.strictEqual(snapshot.longhorn?.volume, volume);
    assert.deepStrictEqual(
      snapshot.longhorn?.engines?.map((engine) => engine.metadata?.name),
      ['manual-volume-e-0'],
    );
  });

  it('prefers the Volume named after the PV, and takes none when two Volumes record the same PV', () => {
    const named = longhornVolume();
    const { source, options } = memorySource({
      ...state,
      longhornVolumes: [named, longhornVolume({ name: 'stale', pvName: PV_NAME })],
    });
    assert.strictEqual(
      assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options).longhorn?.volume,
      named,
    );
    const twice = memorySource({
      ...state,
      longhornVolumes: [
        longhornVolume({ name: 'a', pvName: PV_NAME }),
        longhornVolume({ name: 'b', pvName: PV_NAME }),
      ],
      longhornEngines: [],
    });
    assert.deepStrictEqual(
      assembleResizeSnapshot(twice.source, claim, resized(claim, '20Gi'), twice.options).longhorn,
      { volume: null, engines: [], volumesRecordingPv: ['a', 'b'], version: 'v1.9.1' },
    );
  });

  it('ignores a Volume recording the PV outside the Longhorn namespace', () => {
    const elsewhere = longhornVolume({ name: 'manual-volume', pvName: PV_NAME });
    elsewhere.metadata = { ...elsewhere.metadata, namespace: 'elsewhere' };
    const { source } = memorySource({ longhornVolumes: [elsewhere] });
    assert.deepStrictEqual(source.getLonghornVolumesOfPv(PV_NAME), []);
  });

  it('records that Longhorn objects were not read when there are no Longhorn caches (not watched)', () => {
    const { caches, options } = memorySource(state);
    const { longhornVolumes: _v, longhornEngines: _e, longhornSettings: _s, ...rest } = caches;
    const source = createCacheSnapshotSource(rest as AdmissionCaches, options);
    const snapshot = assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options);
    assert.deepStrictEqual(snapshot.longhorn, { volume: null, engines: [], read: false });
    const watched = assembleResizeSnapshot(
      memorySource({ ...state, longhornSettings: [] }).source,
      claim,
      resized(claim, '20Gi'),
      options,
    );
    assert.isUndefined(watched.longhorn?.read, 'read, and the version Setting is missing');
    assert.isUndefined(watched.longhorn?.version);
  });

  it('skips Longhorn objects for other provisioners', () => {
    const { source, options } = memorySource(state);
    const nfs = pvc('nfs-disk', { provisioner: 'nfs.csi.k8s.io', className: 'nfs-csi' });
    assert.isUndefined(assembleResizeSnapshot(source, nfs, resized(nfs, '20Gi'), options).longhorn);
  });

  it('reports a missing Setting, KubeVirt CR and StorageClass as missing', () => {
    const { source, options } = memorySource({ pvcs: [claim] });
    const snapshot = assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options);
    assert.deepStrictEqual(snapshot.expandSetting, { state: 'missing' });
    assert.isNull(snapshot.kubeVirt);
    assert.isNull(snapshot.storageClass);
  });

  it('reports an invalid Setting with its code', () => {
    const { source, options } = memorySource({
      ...state,
      settings: [harvesterSetting('{"nfs.csi.k8s.io":"yes"}')],
    });
    const snapshot = assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options);
    assert.strictEqual(snapshot.expandSetting.state, 'invalid');
    assert.strictEqual(
      snapshot.expandSetting.state === 'invalid' && snapshot.expandSetting.error.code,
      'SETTING_INVALID_VALUE',
    );
  });

  it('reads a configured Setting name', () => {
    const renamed = harvesterSetting('{"nfs.csi.k8s.io":true}', '', 'my-expand-validation');
    const { source, options } = memorySource(
      { ...state, settings: [renamed] },
      { settingName: 'my-expand-validation' },
    );
    const snapshot = assembleResizeSnapshot(source, claim, resized(claim, '20Gi'), options);
    assert.isTrue(
      snapshot.expandSetting.state === 'parsed' &&
        snapshot.expandSetting.validation.allows('nfs.csi.k8s.io'),
    );
  });
});

describe('createAdmissionValidators', () => {
  it('wires the three validators over the caches', async () => {
    const { caches } = memorySource({
      pvcs: [pvc(ROOT)],
      vms: [vm('vm1')],
      kubeVirts: [kubeVirt({ gates: [] })],
      storageClasses: [longhornImageClass()],
    });
    const validators = createAdmissionValidators({
      caches: caches as AdmissionCaches,
      csiDrivers: new MemoryCache([csiDriver('nfs.csi.k8s.io'), csiDriver('driver.longhorn.io')]),
    });
    assert.deepStrictEqual(
      validators.map((v) => [v.name, v.path]),
      [
        ['pvc-resize', '/validate/pvc-resize'],
        ['vm', '/validate/vm'],
        ['setting', '/validate/setting'],
      ],
    );
    const claim = pvc(ROOT);
    const verdict = await validators[0]!.validate(
      admissionRequest({
        operation: 'UPDATE',
        resource: PVC_RESOURCE,
        kind: PVC_KIND,
        oldObject: claim,
        object: resized(claim, '20Gi'),
      }),
    );
    assert.strictEqual(verdict.decision, 'gate-missing');
    const setting = await validators[2]!.validate(
      admissionRequest({
        operation: 'UPDATE',
        resource: SETTING_RESOURCE,
        kind: SETTING_KIND,
        object: harvesterSetting('{"nfs.csi.k8s.io":true,"x.example":true}'),
      }),
    );
    assert.isTrue(setting.allowed);
    assert.strictEqual(setting.warnings?.length, 1);
    assert.ok(setting.warnings?.[0]?.includes('x.example'));
  });
});
