/**
 * voe enable / voe disable on a real kube-apiserver (through the API and through the CLI),
 * voe status, and voe watch as a process: probes, SIGTERM, --enable.
 */
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import {
  EventRecorder,
  eventSink,
  isNotFound,
  requestJson,
  resourcePath,
} from '../../../src/kube/index.js';
import {
  disableExpansion,
  enableExpansion,
  Phase,
  StageReason,
  type EnablementOptions,
  type RunningTracker,
} from '../../../src/vmwatcher/index.js';
import {
  ADDED_GATES_ANNOTATION,
  CREATED_BY_ANNOTATION,
} from '../../../src/vmwatcher/plan-enablement.js';
import type { KubeVirt } from '../../../src/model/index.js';
import type { HarvesterSetting } from '../../../src/settings/index.js';
import { onCleanup } from '../../support/cleanup.js';
import { runVoe, VOE_MAIN } from '../../support/run-voe.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { eventuallyValue } from '../../support/eventually.js';
import { KUBEVIRT_NAMESPACE, labLogger, TrackerLab } from '../../support/vmwatcher/tracker-lab.js';

const cp = await useControlPlane();
const lab = new TrackerLab(cp.kubeConfig);
const { actors, cluster } = lab;
const WITHOUT = ['LiveMigration', 'HotplugVolumes'];
const SETTING = 'csi-online-expand-validation';
const KUBEVIRT_PATH = resourcePath({
  group: 'kubevirt.io',
  version: 'v1',
  plural: 'kubevirts',
  namespace: KUBEVIRT_NAMESPACE,
  name: 'kubevirt',
});
const SETTING_PATH = resourcePath({
  group: 'harvesterhci.io',
  version: 'v1beta1',
  plural: 'settings',
  name: SETTING,
});
const recorder = new EventRecorder({
  sink: eventSink(cp.kubeConfig),
  reportingController: 'storage.voe.dev/vmwatcher',
  reportingInstance: 'enablement-test',
});
const options: EnablementOptions = {
  recorder,
  kubeConfig: cp.kubeConfig,
  kubeVirtNamespace: KUBEVIRT_NAMESPACE,
  kubeVirtName: 'kubevirt',
  settingName: SETTING,
  logger: labLogger(),
};

const getKubeVirt = () =>
  requestJson<KubeVirt>(cp.kubeConfig, { method: 'GET', path: KUBEVIRT_PATH });

async function getSetting(): Promise<
  (HarvesterSetting & { metadata?: { annotations?: Record<string, string> } }) | undefined
> {
  try {
    return await requestJson(cp.kubeConfig, { method: 'GET', path: SETTING_PATH });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The KubeVirt CR as a test needs it: these gates, no voe annotation, this version. */
async function resetKubeVirt(state: {
  gates: string[];
  disabled?: string[];
  version?: string;
}): Promise<void> {
  const current = await getKubeVirt();
  current.spec!.configuration!.developerConfiguration = {
    featureGates: state.gates,
    ...(state.disabled ? { disabledFeatureGates: state.disabled } : {}),
  };
  current.metadata!.annotations = {};
  await requestJson(cp.kubeConfig, { method: 'PUT', path: KUBEVIRT_PATH, body: current });
  await requestJson(cp.kubeConfig, {
    method: 'PATCH',
    path: `${KUBEVIRT_PATH}/status`,
    contentType: 'application/merge-patch+json',
    body: { status: { observedKubeVirtVersion: state.version ?? 'v1.5.2' } },
  });
  if (await getSetting())
    await requestJson(cp.kubeConfig, { method: 'DELETE', path: SETTING_PATH });
}

const gatesOf = (kubeVirt: KubeVirt) =>
  kubeVirt.spec?.configuration?.developerConfiguration?.featureGates ?? [];

describe('voe enable, voe disable, voe status and voe watch on a real kube-apiserver', () => {
  let tracker: RunningTracker | undefined;

  before(async () => {
    await lab.stageCluster({ gates: WITHOUT });
  });

  after(async () => {
    await tracker?.stop();
    await recorder.stop();
  });

  it('enable unsticks an ExpandDisksOff expansion; both are idempotent and disable undoes only what enable did', async () => {
    await resetKubeVirt({ gates: WITHOUT });
    tracker = await lab.startTracker({ leaseName: 'enablement' });
    const ns = 'gate-off';
    const claim = 'vm1-disk-0-gate1';
    const name = `${claim}-20gi`;
    await lab.stageVm(ns, 'vm1', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    await actors.resizerStarts(ns, claim, '20Gi');
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
    await actors.resizerNeedsNode(ns, claim);
    await actors.kubeletStarts(ns, claim);
    await actors.kubeletFinishes(ns, claim);
    await actors.virtControllerSyncs(ns, 'vm1', claim);
    const stuck = await lab.waitForPhase(ns, name, Phase.Stuck, StageReason.ExpandDisksOff);
    assert.include(stuck.status?.message, 'voe enable');

    const enabled = await enableExpansion(options);
    assert.deepStrictEqual(
      enabled.map((step) => step.changed),
      [true, true],
    );
    const kubeVirt = await getKubeVirt();
    assert.deepStrictEqual(gatesOf(kubeVirt), [...WITHOUT, 'ExpandDisks']);
    assert.strictEqual(kubeVirt.metadata?.annotations?.[ADDED_GATES_ANNOTATION], 'ExpandDisks');
    const setting = await getSetting();
    assert.strictEqual(setting?.default, '{"driver.longhorn.io":true}');
    assert.strictEqual(setting?.metadata?.annotations?.[CREATED_BY_ANNOTATION], 'voe enable');
    await lab.waitForPhase(ns, name, Phase.HypervisorResizing, StageReason.NoGuestProbe);
    await eventuallyValue(
      async () => (await lab.events(KUBEVIRT_NAMESPACE, 'kubevirt')).map((e) => e.reason),
      (reasons) => reasons.includes('ExpandDisksEnabled'),
      'an Event on the KubeVirt CR',
    );
    await eventuallyValue(
      async () => (await lab.events('default', SETTING)).map((e) => e.reason),
      (reasons) => reasons.includes('ExpandSettingCreated'),
      'an Event on the Setting',
    );

    const again = await enableExpansion(options);
    assert.deepStrictEqual(
      again.map((step) => step.changed),
      [false, false],
    );
    assert.deepStrictEqual(gatesOf(await getKubeVirt()), [...WITHOUT, 'ExpandDisks']);

    const disabled = await disableExpansion(options);
    assert.deepStrictEqual(
      disabled.map((step) => step.changed),
      [true, true],
    );
    const after = await getKubeVirt();
    assert.deepStrictEqual(gatesOf(after), WITHOUT);
    assert.isUndefined(after.metadata?.annotations?.[ADDED_GATES_ANNOTATION]);
    assert.isUndefined(await getSetting());
    const twice = await disableExpansion(options);
    assert.deepStrictEqual(
      twice.map((step) => step.changed),
      [false, false],
    );
    // Level-based: the gate is off again.
    await lab.waitForPhase(ns, name, Phase.Stuck, StageReason.ExpandDisksOff);
  });

  it('leaves a gate and a Setting it did not add, a gate the administrator disabled, and a GA KubeVirt alone', async () => {
    await resetKubeVirt({ gates: [...WITHOUT, 'ExpandDisks'] });
    await requestJson(cp.kubeConfig, {
      method: 'POST',
      path: resourcePath({ group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings' }),
      body: {
        apiVersion: 'harvesterhci.io/v1beta1',
        kind: 'Setting',
        metadata: { name: SETTING },
        default: '{}',
      },
    });
    const listed = await enableExpansion(options);
    assert.deepStrictEqual(
      listed.map((step) => step.changed),
      [false, false],
    );
    assert.match(listed[0]!.message, /already in featureGates \(not added by voe\)/);
    await disableExpansion(options);
    assert.deepStrictEqual(gatesOf(await getKubeVirt()), [...WITHOUT, 'ExpandDisks']);
    assert.isDefined(await getSetting());

    await resetKubeVirt({ gates: WITHOUT, disabled: ['ExpandDisks'] });
    const refused = await enableExpansion(options);
    assert.isFalse(refused[0]!.changed);
    assert.match(refused[0]!.message, /disabledFeatureGates: voe enable changes nothing/);
    assert.deepStrictEqual(gatesOf(await getKubeVirt()), WITHOUT);
    await eventuallyValue(
      async () =>
        (await lab.events(KUBEVIRT_NAMESPACE, 'kubevirt')).find(
          (e) => e.reason === 'ExpandDisksDisabledByUser',
        ),
      (event) => event?.type === 'Warning',
      'a Warning Event',
    );

    await resetKubeVirt({ gates: WITHOUT, version: 'v1.9.0' });
    const ga = await enableExpansion(options);
    assert.match(ga[0]!.message, /v1.9.0 has ExpandDisks GA/);
    assert.deepStrictEqual(gatesOf(await getKubeVirt()), WITHOUT);
  });

  it('keeps the Setting it created once a value was set, removing only its mark', async () => {
    await resetKubeVirt({ gates: WITHOUT });
    await enableExpansion(options);
    await requestJson(cp.kubeConfig, {
      method: 'PATCH',
      path: SETTING_PATH,
      contentType: 'application/merge-patch+json',
      body: { value: '{"nfs.csi.k8s.io":true}' },
    });
    const steps = await disableExpansion(options);
    assert.match(steps[1]!.message, /Kept the Setting/);
    const setting = await getSetting();
    assert.strictEqual(setting?.value, '{"nfs.csi.k8s.io":true}');
    assert.isUndefined(setting?.metadata?.annotations?.[CREATED_BY_ANNOTATION]);
  });

  it('voe enable and voe disable from the command line', async () => {
    await resetKubeVirt({ gates: WITHOUT });
    const kubeconfig = ['--kubeconfig', cp.kubeconfigPath];
    const enable = await runVoe(['enable', ...kubeconfig]);
    assert.strictEqual(enable.code, 0, enable.stderr);
    assert.match(enable.stdout, /^kubevirt harvester-system\/kubevirt: Added ExpandDisks/m);
    assert.match(enable.stdout, /^setting csi-online-expand-validation: Created the Setting/m);
    assert.match(enable.stderr, /"msg":"Added ExpandDisks/);
    const json = await runVoe(['enable', '--json', ...kubeconfig]);
    assert.deepStrictEqual(
      (JSON.parse(json.stdout) as Array<{ changed: boolean }>).map((step) => step.changed),
      [false, false],
    );
    const disable = await runVoe(['disable', ...kubeconfig]);
    assert.strictEqual(disable.code, 0, disable.stderr);
    assert.match(disable.stdout, /Removed ExpandDisks/);
    const missing = await runVoe(['enable', '--kubevirt-namespace', 'kubevirt', ...kubeconfig]);
    assert.strictEqual(missing.code, 2);
    assert.match(missing.stderr, /TRACKER_KUBEVIRT_MISSING/);
  });

  it('voe status prints the columns of kubectl get volumeexpansions, or JSON', async () => {
    await eventuallyValue(
      () => lab.expansions('gate-off'),
      (items) => items.length === 1,
      'the expansion of the first test',
    );
    const all = await runVoe(['status', '-A', '--kubeconfig', cp.kubeconfigPath]);
    assert.strictEqual(all.code, 0, all.stderr);
    assert.match(all.stdout, /^NAMESPACE +PVC +VM +FROM +TO +PHASE +WAITING FOR +AGE +MESSAGE\n/);
    assert.match(
      all.stdout,
      /\ngate-off +vm1-disk-0-gate1 +vm1 +10Gi +20Gi +(Stuck|HypervisorResizing) +/,
    );
    const json = await runVoe([
      'status',
      '-n',
      'gate-off',
      '--json',
      '--kubeconfig',
      cp.kubeconfigPath,
    ]);
    const rows = JSON.parse(json.stdout) as Array<{ pvc: string; reason: string }>;
    assert.strictEqual(rows[0]?.pvc, 'vm1-disk-0-gate1');
    const empty = await runVoe(['status', '-n', 'nothing-here', '--kubeconfig', cp.kubeconfigPath]);
    assert.strictEqual(empty.code, 0);
    assert.match(empty.stderr, /No volume expansions in namespace nothing-here/);
    const both = await runVoe(['status', '-n', 'x', '-A', '--kubeconfig', cp.kubeconfigPath]);
    assert.strictEqual(both.code, 2);
    assert.match(both.stderr, /TRACKER_USAGE/);
  });

  it('voe watch --enable serves /livez, /readyz and /metrics, leads, and stops cleanly on SIGTERM', async () => {
    await tracker?.stop();
    tracker = undefined;
    await resetKubeVirt({ gates: WITHOUT });
    const child = spawn(
      process.execPath,
      [
        VOE_MAIN,
        'watch',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--enable',
        '--port',
        '0',
        '--bind-address',
        '127.0.0.1',
        '--lease-namespace',
        'default',
        '--lease-name',
        'voe-watch-cli',
        '--stuck-after',
        '2m',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    onCleanup(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const url = await eventuallyValue(
      async () => /at (http:\/\/\S+) /.exec(stderr)?.[1],
      (found) => found !== undefined,
      'the probe address',
    );
    assert.strictEqual((await fetch(`${url}/livez`)).status, 200);
    await eventuallyValue(
      async () => (await fetch(`${url}/readyz`)).status,
      (s) => s === 200,
      'ready',
    );
    assert.deepStrictEqual(gatesOf(await getKubeVirt()), [...WITHOUT, 'ExpandDisks']);
    const metrics = await eventuallyValue(
      async () => (await fetch(`${url}/metrics`)).text(),
      (text) => /voe_tracker_leader 1/.test(text),
      'leading',
    );
    assert.match(metrics, /voe_expansions_stuck\{reason="NoProgress"\} 0/);
    assert.strictEqual((await fetch(`${url}/nothing`)).status, 404);
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    child.kill('SIGTERM');
    assert.strictEqual(await exited, 0, stderr);
    assert.match(stdout, /"msg":"tracker stopped"/);
    const lease = await requestJson<{ spec?: { holderIdentity?: string } }>(cp.kubeConfig, {
      method: 'GET',
      path: resourcePath({
        group: 'coordination.k8s.io',
        version: 'v1',
        plural: 'leases',
        namespace: 'default',
        name: 'voe-watch-cli',
      }),
    });
    assert.strictEqual(lease.spec?.holderIdentity ?? '', '', 'the lease was released');
  });

  it('voe watch refuses a bad --stuck-after as a usage error', async () => {
    const bad = await runVoe(['watch', '--stuck-after', 'soon', '--kubeconfig', cp.kubeconfigPath]);
    assert.strictEqual(bad.code, 2);
    assert.match(bad.stderr, /--stuck-after.*must be a duration/);
  });

  it('voe watch refuses --guest-filesystem-growth without a guest probe, before starting anything', async () => {
    const bad = await runVoe([
      'watch',
      '--guest-filesystem-growth',
      '--port',
      '0',
      '--kubeconfig',
      cp.kubeconfigPath,
    ]);
    assert.strictEqual(bad.code, 2);
    assert.match(bad.stderr, /TRACKER_USAGE/);
    assert.match(
      bad.stderr,
      /--guest-filesystem-growth needs a guest probe \(--guest-probe pods-exec/,
    );
    assert.notMatch(bad.stderr, /\/livez, \/readyz and \/metrics at/);
  });
});
