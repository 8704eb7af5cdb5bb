/**
 * `voe demo` as a user runs it: with no cluster configured it starts its own control plane,
 * stages the scenario, registers the webhook and tries every resize through the API server;
 * with --kubeconfig it only reads (what each VM disk would get if it grew now).
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../support/cleanup.js';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { DemoReport, SurveyEntry } from '../../src/demo/index.js';
import { DEMO_STEPS } from '../../src/demo/demo-steps.js';
import {
  SCENARIO,
  scenarioClaims,
  stageExpansionScenario,
} from '../../src/demo/expansion-scenario.js';
import { StagedCluster } from '../../src/demo/staged-cluster.js';
import type { SurveyRow } from '../../src/demo/survey-rows.js';
import { installCrds } from '../../src/controlplane/index.js';
import {
  controlPlaneTestEnv,
  startTestControlPlane,
  testCacheDir,
} from '../support/use-control-plane.js';

const MAIN = 'dist/src/cli/main.js';

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** No KUBECONFIG: "no cluster configured". */
function localEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...controlPlaneTestEnv(), VOE_CACHE_DIR: testCacheDir() };
  delete env['KUBECONFIG'];
  return env;
}

it('voe demo with no cluster configured: every resize is admitted or refused as the design says, on its own control plane', async () => {
  const result = await run(['demo', '--json'], localEnv());
  assert.strictEqual(result.code, 0, result.stderr);
  assert.match(result.stderr, /voe demo: starting a local control plane/);
  const report = JSON.parse(result.stdout) as DemoReport;
  assert.isTrue(report.ok);
  assert.strictEqual(report.configurationName, 'voe-demo');
  assert.deepStrictEqual(
    report.steps.map((s) => s.outcome),
    DEMO_STEPS.map((s) => s.expect),
  );
  for (const [index, step] of report.steps.entries()) {
    assert.isTrue(step.ok, `step ${step.step}: ${step.title}: ${step.mismatch ?? ''}`);
    assert.isUndefined(step.mismatch);
    const design = DEMO_STEPS[index]!;
    if (step.outcome === 'refused') {
      assert.strictEqual(step.code, 422);
      assert.match(
        step.message ?? '',
        /^admission webhook "pvc-resize\.voe\.harvesterhci\.io" denied the request: PVC_EXPAND: /,
      );
      // Refused by the voe webhook, for the reason the design gives.
      assert.strictEqual(step.refusedBy, 'voe-webhook');
      assert.strictEqual(
        step.expectedDecision,
        design.expect === 'refused' ? design.decision : undefined,
      );
      assert.strictEqual(step.decision, step.expectedDecision);
    } else {
      assert.isUndefined(step.message);
      assert.isUndefined(step.refusedBy);
    }
  }
  const [hotplugFs] = report.steps.filter(
    (s) => s.pvc === `default/${SCENARIO.topolvmFilesystemHotplug}`,
  );
  assert.match(
    hotplugFs?.message ?? '',
    /Expansion of hotplugged PVC 'default\/data-topolvm-fs' in filesystem mode is not supported/,
  );
  const gateMissing = report.steps.find((s) => s.change?.includes('featureGates'));
  assert.match(
    gateMissing?.message ?? '',
    /PVC_EXPAND: kubevirt ExpandDisks not included in featureGate\./,
  );

  // The tracker followed every admitted resize, in the order admitted, through the phases its plays lead to.
  assert.match(report.trackerUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  const ends = (expansion: DemoReport['expansions'][number]) =>
    expansion.timeline.map((entry) => `${entry.phase}/${entry.reason}`);
  const online = [
    'ControllerResizing/WaitingForResizer',
    'ControllerResizing/ControllerResizeInProgress',
    'NodeResizePending/NodeResizePending',
    'NodeResizing/NodeResizeInProgress',
    'VMUpdating/WaitingForVmi',
    'HypervisorResizing/NoGuestProbe',
  ];
  assert.deepStrictEqual(
    report.expansions.map((e) => [e.expansion, e.ok, ends(e)]),
    [
      ['default/vm1-disk-0-kq8zt-20gi', true, ['Superseded/NewerRequest']],
      ['default/vm2-disk-0-v2abc-20gi', true, online],
      ['default/vm5-disk-0-stop1-20gi', true, [...online.slice(0, 2), 'Stuck/VMStopped']],
      ['default/vm3-disk-0-nfs01-20gi', true, online],
      ['default/data-topolvm-block-20gi', true, online],
      ['default/vm1-disk-0-kq8zt-30gi', true, online],
    ],
  );
  const waiting = report.expansions.map((e) => e.timeline.map((entry) => entry.waitingFor));
  assert.deepStrictEqual(waiting[1], [
    'external-resizer',
    'external-resizer',
    'kubelet',
    'kubelet',
    'virt-controller',
    'virt-handler',
  ]);
  assert.deepStrictEqual(waiting[2]?.at(-1), 'user');
  assert.include(report.expansions[2]?.timeline.at(-1)?.message, 'start the VM');
  // What voe status shows at the end: one VolumeExpansion per admitted resize.
  assert.deepStrictEqual(report.status.map((row) => `${row.pvc} ${row.to} ${row.phase}`).sort(), [
    'data-topolvm-block 20Gi HypervisorResizing',
    'vm1-disk-0-kq8zt 20Gi Superseded',
    'vm1-disk-0-kq8zt 30Gi HypervisorResizing',
    'vm2-disk-0-v2abc 20Gi HypervisorResizing',
    'vm3-disk-0-nfs01 20Gi HypervisorResizing',
    'vm5-disk-0-stop1 20Gi Stuck',
  ]);
});

it('voe demo prints each step for people and exits 0', async () => {
  const result = await run(['demo'], localEnv());
  assert.strictEqual(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    / 1\. Longhorn v1 Block root disk of running VM vm1\n {4}PVC default\/vm1-disk-0-kq8zt 10Gi -> 20Gi: ADMITTED\n/,
  );
  assert.match(
    result.stdout,
    / 4\. NFS disk of running VM vm3 .*\n {4}PVC default\/vm3-disk-0-nfs01 10Gi -> 20Gi: REFUSED \(422\) by the voe webhook \(provisioner-not-validated\)\n {4}admission webhook .* add "nfs\.csi\.k8s\.io":true to the Setting's value/,
  );
  assert.match(
    result.stdout,
    /first: Setting csi-online-expand-validation value -> \{"nfs\.csi\.k8s\.io":true\}/,
  );
  assert.match(result.stdout, /\nAfter admission: the voe tracker follows each admitted resize /);
  assert.match(
    result.stdout,
    /\ndefault\/vm2-disk-0-v2abc 10Gi -> 20Gi, VM vm2: VolumeExpansion default\/vm2-disk-0-v2abc-20gi\n {4}voe webhook +admitted the resize.* -> ControllerResizing \(WaitingForResizer\), waiting for external-resizer\n {4}external-resizer +picks the PVC up.* -> ControllerResizing \(ControllerResizeInProgress\), waiting for external-resizer {2}\(seen in \d+ ms\)\n/,
  );
  assert.match(
    result.stdout,
    /\n {4}virt-controller +copies the PVC's size .* -> HypervisorResizing \(NoGuestProbe\), waiting for virt-handler {2}\(seen in \d+ ms\)\n {4}The VMI default\/vm2 has the new size 20Gi: /,
  );
  assert.match(
    result.stdout,
    /\n\$ voe status -n default\nPVC +VM +FROM +TO +PHASE +WAITING FOR +AGE +MESSAGE\n/,
  );
  assert.match(
    result.stdout,
    /11 resizes: 6 admitted, 5 refused by the voe webhook .*\n6 admitted resizes followed by the voe tracker \(http:\/\/127\.0\.0\.1:\d+\/metrics, stopped again\): 1 Superseded \(NewerRequest\), 4 HypervisorResizing \(NoGuestProbe\), 1 Stuck \(VMStopped\)\.\nEvery answer is the one Harvester's design asks for\.\n$/,
  );
});

it('voe demo --kubeconfig only reads: what each VM disk would get if it grew now', async () => {
  // A control plane of its own: the test counts every webhook registration and claim there.
  const cp = await startTestControlPlane();
  onCleanup(() => cp.stop());
  await installCrds(cp.kubeConfig);
  await stageExpansionScenario(new StagedCluster(cp.kubeConfig));
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const before = await core.listNamespacedPersistentVolumeClaim({ namespace: 'default' });

  const result = await run(
    ['demo', '--kubeconfig', cp.kubeconfigPath, '--grow-by', '5Gi', '--json'],
    { ...process.env },
  );
  assert.strictEqual(result.code, 0, result.stderr);
  const entries = JSON.parse(result.stdout) as SurveyEntry[];
  // vm4's root disk names a claim that does not exist: listed as not found, not left out.
  const missing = 'default/vm4-disk-0-root1';
  assert.deepStrictEqual(
    entries.filter((entry) => !entry.found),
    [
      {
        pvc: missing,
        found: false,
        vms: ['vm4 (Running)'],
        message:
          'PVC default/vm4-disk-0-root1 was not found: the VM names it, but it does not exist (yet), so there is nothing to grow.',
      },
    ],
  );
  const rows = entries.filter((entry): entry is SurveyRow => entry.found);
  const byPvc = new Map(rows.map((row) => [row.pvc, row]));
  // The six claims, each judged.
  assert.deepStrictEqual(
    [...byPvc.keys()].sort(),
    scenarioClaims()
      .map((c) => `default/${c.metadata?.name}`)
      .sort(),
  );
  assert.isTrue(byPvc.get(`default/${SCENARIO.longhornV1Disk}`)?.allowed);
  assert.strictEqual(byPvc.get(`default/${SCENARIO.longhornV1Disk}`)?.to, '15Gi');
  assert.deepStrictEqual(byPvc.get(`default/${SCENARIO.longhornV1Disk}`)?.vms, ['vm1 (Running)']);
  assert.isFalse(byPvc.get(`default/${SCENARIO.nfsDisk}`)?.allowed);
  assert.isTrue(byPvc.get(`default/${SCENARIO.stoppedVmDisk}`)?.allowed);
  assert.deepStrictEqual(byPvc.get(`default/${SCENARIO.stoppedVmDisk}`)?.vms, ['vm5 (Stopped)']);
  assert.isFalse(byPvc.get(`default/${SCENARIO.topolvmFilesystemHotplug}`)?.allowed);
  // Longhorn's Volume CR (listed once for all disks) and its version Setting were read.
  assert.isFalse(byPvc.get(`default/${SCENARIO.longhornV2Disk}`)?.allowed);
  assert.match(
    byPvc.get(`default/${SCENARIO.longhornV2Disk}`)?.message ?? '',
    new RegExp(
      `Longhorn v2 data engine volume \\(Volume CR\\).*Longhorn ${SCENARIO.longhornVersion.replace(/\./g, '\\.')} is installed`,
    ),
  );

  const after = await core.listNamespacedPersistentVolumeClaim({ namespace: 'default' });
  assert.deepStrictEqual(
    after.items.map((p) => p.metadata?.resourceVersion),
    before.items.map((p) => p.metadata?.resourceVersion),
    'nothing was changed',
  );
  const hooks = await cp.kubeConfig
    .makeApiClient(AdmissionregistrationV1Api)
    .listValidatingWebhookConfiguration();
  assert.strictEqual(hooks.items.length, 0, 'no webhook was registered');

  const human = await run(['demo', '--kubeconfig', cp.kubeconfigPath], { ...process.env });
  assert.strictEqual(human.code, 0, human.stderr);
  assert.match(
    human.stdout,
    /^What the voe webhook would answer if each VM disk grew by 1Gi now \(nothing was changed\):/,
  );
  assert.match(
    human.stdout,
    /ALLOWED {2}default\/vm1-disk-0-kq8zt 10Gi -> 11Gi {2}used by vm1 \(Running\)/,
  );
  assert.match(
    human.stdout,
    /REFUSED {2}default\/vm3-disk-0-nfs01 10Gi -> 11Gi {2}used by vm3 \(Running\)\n {9}PVC_EXPAND: /,
  );
  assert.match(
    human.stdout,
    /\nMISSING {2}default\/vm4-disk-0-root1 {2}used by vm4 \(Running\)\n {9}PVC default\/vm4-disk-0-root1 was not found: /,
  );
});

it('voe demo interrupted (SIGINT) while it tries the resizes stops between steps and leaves nothing behind: no control plane data, no dev webhook key', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'voe-demo-interrupted-'));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  const child = spawn(process.execPath, [MAIN, 'demo'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...localEnv(), TMPDIR: tmp },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  // The first step printed means the control plane runs and the webhook is registered (its key is in TMPDIR).
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', () => reject(new Error(`voe demo ended before its first step: ${stderr}`)));
  });
  assert.ok(
    (await readdir(tmp)).some((name) => name.startsWith('voe-webhook-')),
    'the dev webhook certificate dir exists while the demo runs',
  );
  child.kill('SIGINT');
  assert.deepStrictEqual(await exited, { code: 130, signal: null }, stderr);
  assert.deepStrictEqual(await readdir(tmp), [], 'nothing left in its TMPDIR');
  // The webhook stays registered until the step under way has its answer, and the API server
  // runs until the webhook has removed its registration: no step is judged without the webhook,
  // and the cleanup logs no failure.
  assert.notMatch(stdout, /MISMATCH/);
  assert.notMatch(stderr, /"level":50|cleanup failed/);
});

it('voe demo whose output is closed (voe demo | head) stops as on SIGPIPE: exit 141, nothing on stderr but its progress, nothing left behind', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'voe-demo-closed-'));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));
  const child = spawn(process.execPath, [MAIN, 'demo'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...localEnv(), TMPDIR: tmp },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  // Like `head -1`: read the first step, then close the pipe.
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => {
      child.stdout.destroy();
      resolve();
    });
    child.once('exit', () => reject(new Error(`voe demo ended before its first step: ${stderr}`)));
  });
  assert.deepStrictEqual(await exited, { code: 141, signal: null }, stderr);
  assert.deepStrictEqual(await readdir(tmp), [], 'nothing left in its TMPDIR');
  assert.deepStrictEqual(
    stderr.split('\n').filter((line) => line !== '' && !line.startsWith('voe demo: ')),
    [],
    'only the progress lines',
  );
});

it("voe demo --dir stopped by SIGTERM exits 143 and takes its webhook registration with it; DIR is then one control plane's: a demo beside a running one is refused", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-demo-dir-'));
  onCleanup(async () => {
    await run(['cluster', 'stop', '--dir', dir], localEnv());
    await rm(dir, { recursive: true, force: true });
  });
  const child = spawn(process.execPath, [MAIN, 'demo', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: localEnv(),
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  // The first step printed: the webhook is registered.
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', () => reject(new Error(`voe demo ended before its first step: ${stderr}`)));
  });
  child.kill('SIGTERM');
  assert.deepStrictEqual(await exited, { code: 143, signal: null }, stderr);

  // The same DIR as a control plane of its own: the demo's configuration (failurePolicy Fail, pointing
  // at the stopped demo) is not there to refuse every growing PVC.
  const started = await run(['cluster', 'start', '--dir', dir], localEnv());
  assert.strictEqual(started.code, 0, started.stderr);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(join(dir, 'kubeconfig'));
  const configurations = await kubeConfig
    .makeApiClient(AdmissionregistrationV1Api)
    .listValidatingWebhookConfiguration();
  assert.deepStrictEqual(
    configurations.items.map((c) => c.metadata?.name),
    [],
  );

  const beside = await run(['demo', '--dir', dir], localEnv());
  assert.strictEqual(beside.code, 2, beside.stderr);
  assert.match(
    beside.stderr,
    /^voe: CONTROLPLANE_ALREADY_RUNNING: a control plane already runs \(or is starting\) for /m,
  );
  const kubeConfigAgain = new KubeConfig();
  kubeConfigAgain.loadFromFile(join(dir, 'kubeconfig'));
  assert.ok(
    (await kubeConfigAgain.makeApiClient(CoreV1Api).listNamespace()).items.length > 0,
    'the running control plane still answers with its kubeconfig',
  );
});

it('voe demo with a binary that cannot be started says so and exits 2 (no crash)', async () => {
  const result = await run(['demo'], {
    ...localEnv(),
    TEST_ASSET_KUBE_APISERVER: '/nonexistent/kube-apiserver',
    TEST_ASSET_ETCD: '/nonexistent/etcd',
  });
  assert.strictEqual(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /^voe: CONTROLPLANE_BINARY_MISSING: cannot start etcd \(\/nonexistent\/etcd\)/m,
  );
  assert.notMatch(result.stderr, /Unhandled 'error' event/);
});
