import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formatDemoExpansion,
  formatDemoStatus,
  formatDemoStep,
  formatDemoSummary,
  formatSurvey,
  formatVmDemo,
} from '../../../src/cli/format-demo.js';
import type {
  DemoReport,
  DemoStepResult,
  ExpansionResult,
  VmDemoReport,
} from '../../../src/demo/index.js';
import type { SurveyMissingClaim, SurveyRow } from '../../../src/demo/survey-rows.js';
import {
  BROKEN_SECRETS,
  UNREACHABLE_TOKEN,
  writeBrokenKubeconfig,
  writeUnreachableKubeconfig,
} from '../../support/unreachable-kubeconfig.js';
import { runVoe } from '../../support/run-voe.js';
import { listenTcp } from '../../support/tcp-listener.js';

const voe = (args: string[]) => runVoe(args);

describe('voe demo (usage; no API server is reached)', () => {
  it('--help describes both modes', async () => {
    const { code, stdout } = await voe(['demo', '--help']);
    assert.strictEqual(code, 0);
    const text = stdout.replace(/\s+/g, ' ');
    assert.match(
      text,
      /With no cluster configured \(no --kubeconfig, no \$KUBECONFIG\) or with --local: start a local control plane/,
    );
    assert.match(text, /On a configured cluster: read-only/);
  });

  it('exits 2 with a coded message for an unreadable kubeconfig, a bad --grow-by and an unreachable cluster', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-demo-usage-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = await writeUnreachableKubeconfig(dir);
    const cases: Array<[string[], RegExp]> = [
      [
        ['demo', '--kubeconfig', join(dir, 'missing')],
        /^voe: DEMO_USAGE: the kubeconfig \S+ cannot be read \(ENOENT\); pass a readable file with --kubeconfig, or --local\n$/,
      ],
      [
        ['demo', '--kubeconfig', await writeBrokenKubeconfig(dir)],
        new RegExp(
          `^voe: DEMO_USAGE: the kubeconfig \\S+ is not valid YAML: [^\\n]*line 8[^\\n]*--local\\n$`,
        ),
      ],
      // A bad --grow-by is a usage error of the option parser, in either mode, before anything starts.
      [
        ['demo', '--kubeconfig', kubeconfig, '--grow-by', '0'],
        /^error: option '--grow-by <quantity>' argument '0' is invalid\. must be a positive quantity such as 1Gi, got "0"\n/,
      ],
      [
        ['demo', '--kubeconfig', kubeconfig, '--grow-by', 'lots'],
        /^error: option '--grow-by <quantity>' argument 'lots' is invalid\. invalid Kubernetes quantity "lots"/,
      ],
      [
        ['demo', '--kubeconfig', kubeconfig, '--grow-by', '100m'],
        /^error: option '--grow-by <quantity>' argument '100m' is invalid\. quantity "100m" is not a whole number of units/,
      ],
      [
        ['demo', '--local', '--grow-by', '1.5'],
        /^error: option '--grow-by <quantity>' argument '1\.5' is invalid\. quantity "1\.5" is not a whole number of units/,
      ],
      [
        ['demo', '--kubeconfig', kubeconfig],
        /^voe: DEMO_API_FAILED: surveying the cluster failed: reading .+ failed: .*ECONNREFUSED/,
      ],
    ];
    for (const [args, stderr] of cases) {
      const result = await voe(args);
      assert.strictEqual(result.code, 2, args.join(' '));
      assert.match(result.stderr, stderr);
      assert.isFalse(result.stderr.includes(UNREACHABLE_TOKEN));
      for (const secret of BROKEN_SECRETS) assert.isFalse(result.stderr.includes(secret));
      assert.strictEqual(result.stdout, '');
    }
  });
});

describe('voe demo survey of an API server that accepts connections and never answers', () => {
  it('gives up after --timeout with DEMO_API_FAILED, exit 2, instead of waiting for ever', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-demo-silent-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = await writeUnreachableKubeconfig(
      dir,
      `https://127.0.0.1:${await listenTcp()}`,
    );
    const result = await voe(['demo', '--kubeconfig', kubeconfig, '--timeout', '1']);
    assert.strictEqual(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /^voe: DEMO_API_FAILED: the API server at https:\/\/127\.0\.0\.1:\d+ did not answer every read of the survey within 1 s; check that it is reachable and not overloaded, or raise --timeout\.\n$/,
    );
    assert.strictEqual(result.stdout, '');
  });
});

describe('voe demo output', () => {
  const refused: DemoStepResult = {
    step: 4,
    title: 'NFS disk of running VM vm3',
    pvc: 'default/vm3-disk-0-nfs01',
    from: '10Gi',
    to: '20Gi',
    expected: 'refused',
    expectedDecision: 'provisioner-not-validated',
    outcome: 'refused',
    code: 422,
    message:
      'admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: PVC_EXPAND: no',
    refusedBy: 'voe-webhook',
    decision: 'provisioner-not-validated',
    ok: true,
  };

  it("prints the change, the resize, who refused it and why, and the API server's message of each step", () => {
    assert.strictEqual(
      formatDemoStep({ ...refused, change: 'Setting value -> {}' }),
      ' 4. NFS disk of running VM vm3\n    first: Setting value -> {}\n    PVC default/vm3-disk-0-nfs01 10Gi -> 20Gi: REFUSED (422) by the voe webhook (provisioner-not-validated)\n' +
        '    admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: PVC_EXPAND: no\n',
    );
  });

  it('marks an answer that differs from the design, and says so in the summary', () => {
    const { code: _code, message: _message, refusedBy: _by, ...rest } = refused;
    const wrong: DemoStepResult = {
      ...rest,
      outcome: 'admitted',
      decision: 'allowed',
      ok: false,
      mismatch:
        "expected REFUSED by the voe webhook (provisioner-not-validated); got ADMITTED (the voe webhook's decision: allowed)",
    };
    assert.match(
      formatDemoStep(wrong),
      /10Gi -> 20Gi: ADMITTED {2}<-- MISMATCH\n {4}MISMATCH: expected REFUSED by the voe webhook \(provisioner-not-validated\); got ADMITTED \(the voe webhook's decision: allowed\)\n$/,
    );
    const summary = formatDemoSummary({
      webhookUrl: 'https://127.0.0.1:1',
      configurationName: 'voe-demo',
      steps: [refused, wrong],
      trackerUrl: 'http://127.0.0.1:2',
      expansions: [],
      status: [],
      ok: false,
    });
    assert.match(
      summary,
      /2 resizes: 1 admitted, 1 refused by the voe webhook \(https:\/\/127\.0\.0\.1:1, ValidatingWebhookConfiguration voe-demo, removed again\)\.\n/,
    );
    assert.match(summary, /1 answer\(s\) differ from Harvester's design: step\(s\) 4\.\n$/);
  });

  it("does not count a refusal by something else (a policy, RBAC, another webhook) as the voe webhook's", () => {
    const policy: DemoStepResult = {
      ...refused,
      step: 9,
      refusedBy: 'other',
      ok: false,
      message:
        "persistentvolumeclaims \"x\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: PVC_EXPAND: no",
      mismatch:
        "expected REFUSED by the voe webhook (provisioner-not-validated); got REFUSED (422) by ValidatingAdmissionPolicy 'p' (binding 'b'), not by the voe webhook; the voe webhook was not called for this update",
    };
    delete policy.decision;
    assert.strictEqual(
      formatDemoStep(policy),
      ' 9. NFS disk of running VM vm3\n    PVC default/vm3-disk-0-nfs01 10Gi -> 20Gi: REFUSED (422)  <-- MISMATCH\n' +
        `    ${policy.message}\n    MISMATCH: ${policy.mismatch}\n`,
    );
    const summary = formatDemoSummary({
      webhookUrl: 'https://127.0.0.1:1',
      configurationName: 'voe-demo',
      steps: [refused, policy],
      trackerUrl: 'http://127.0.0.1:2',
      expansions: [],
      status: [],
      ok: false,
    });
    assert.match(
      summary,
      /2 resizes: 0 admitted, 1 refused by the voe webhook \(.*\), 1 refused by something other than the voe webhook\.\n1 answer\(s\) differ from Harvester's design: step\(s\) 9\.\n$/,
    );
    assert.notMatch(summary, /Every answer/);
  });

  it('says when the survey found no VM disk', () => {
    assert.strictEqual(
      formatSurvey([] as SurveyRow[], '1Gi'),
      'No VirtualMachine uses a PVC in this cluster; nothing to show. Nothing was changed.\n',
    );
  });

  it('prints each survey answer with its message, and under it what could not be judged, as voe check names it', () => {
    const notJudged = (what: string) => ({
      check: 'api-server' as const,
      outcome: 'skip' as const,
      decision: 'api-policy-unreadable' as const,
      message: `Not judged: ${what} (HTTP 403) could not be read; the API server applies them too.`,
    });
    const refused: SurveyRow = {
      pvc: 'q/qd',
      from: '10Gi',
      to: '20Gi',
      allowed: false,
      code: 403,
      reason: 'Forbidden',
      decision: 'api-quota-exceeded',
      warnings: [],
      message:
        'The API server refuses it after the webhooks: exceeded quota rq: requests.storage is 10Gi used of 15Gi, and growing from 10Gi to 20Gi would go above it.',
      findings: [
        {
          check: 'quota',
          outcome: 'refuse',
          decision: 'api-quota-exceeded',
          message: 'exceeded quota rq',
        },
      ],
      found: true,
      vms: ['qvm (Stopped)'],
    };
    const unjudged: SurveyRow = {
      pvc: 'r/rd',
      from: '10Gi',
      to: '20Gi',
      allowed: true,
      code: 200,
      decision: 'allowed-offline',
      warnings: [],
      message:
        'Only stopped VMs use PVC r/rd (r/rvm); it expands offline and the VM sees the size at next start.',
      findings: [
        notJudged('LimitRanges in r'),
        notJudged('ResourceQuotas in r'),
        { check: 'vm', outcome: 'pass', decision: 'allowed-offline', message: 'stopped' },
      ],
      found: true,
      vms: ['rvm (Stopped)', 'rvm2 (Stopped)'],
    };
    assert.strictEqual(
      formatSurvey([refused, unjudged], '10Gi'),
      [
        'What the voe webhook would answer if each VM disk grew by 10Gi now (nothing was changed):',
        '',
        'REFUSED  q/qd 10Gi -> 20Gi  used by qvm (Stopped)',
        `         ${refused.message}`,
        'ALLOWED  r/rd 10Gi -> 20Gi  used by rvm (Stopped), rvm2 (Stopped)',
        `         ${unjudged.message}`,
        '         Not judged: LimitRanges in r (HTTP 403) could not be read; the API server applies them too.',
        '         Not judged: ResourceQuotas in r (HTTP 403) could not be read; the API server applies them too.',
        '',
        'Run `voe check NAMESPACE/PVC --size Q` for every reason behind one answer.',
        '',
      ].join('\n'),
    );
  });

  it('prints a PVC a VM names that does not exist as MISSING, saying it was not found', () => {
    const missing: SurveyMissingClaim = {
      pvc: 'default/vm4-disk-0-root1',
      found: false,
      vms: ['vm4 (Running)'],
      message:
        'PVC default/vm4-disk-0-root1 was not found: the VM names it, but it does not exist (yet), so there is nothing to grow.',
    };
    assert.strictEqual(
      formatSurvey([missing], '1Gi'),
      [
        'What the voe webhook would answer if each VM disk grew by 1Gi now (nothing was changed):',
        '',
        'MISSING  default/vm4-disk-0-root1  used by vm4 (Running)',
        `         ${missing.message}`,
        '',
        'Run `voe check NAMESPACE/PVC --size Q` for every reason behind one answer.',
        '',
      ].join('\n'),
    );
  });
});

describe('voe demo: the tracker part as printed', () => {
  const followed: ExpansionResult = {
    expansion: 'default/vm2-disk-0-v2abc-20gi',
    pvc: 'default/vm2-disk-0-v2abc',
    vm: 'vm2',
    from: '10Gi',
    to: '20Gi',
    expected: { phase: 'NodeResizePending' },
    ok: true,
    timeline: [
      {
        actor: 'voe webhook',
        action: 'admitted the resize',
        phase: 'ControllerResizing',
        waitingFor: 'external-resizer',
        reason: 'WaitingForResizer',
        message: 'waiting',
      },
      {
        actor: 'external-resizer',
        action: 'grows the PV',
        phase: 'NodeResizePending',
        waitingFor: 'kubelet',
        reason: 'NodeResizePending',
        message: 'kubelet grows the filesystem next.',
        afterMs: 42,
      },
    ],
  };
  const report = (expansions: ExpansionResult[]): DemoReport => ({
    webhookUrl: 'https://127.0.0.1:1',
    configurationName: 'voe-demo',
    steps: [],
    trackerUrl: 'http://127.0.0.1:2',
    expansions,
    status: [],
    ok: expansions.every((e) => e.ok),
  });

  it('each write, the phase the tracker showed and how soon, then the last message', () => {
    assert.strictEqual(
      formatDemoExpansion(followed),
      '\ndefault/vm2-disk-0-v2abc 10Gi -> 20Gi, VM vm2: VolumeExpansion default/vm2-disk-0-v2abc-20gi\n' +
        '    voe webhook       admitted the resize  -> ControllerResizing (WaitingForResizer), waiting for external-resizer\n' +
        '    external-resizer  grows the PV         -> NodeResizePending (NodeResizePending), waiting for kubelet  (seen in 42 ms)\n' +
        '    kubelet grows the filesystem next.\n',
    );
  });

  it('an expansion that did not reach its phase is marked, and the summary names it', () => {
    const stuck: ExpansionResult = {
      ...followed,
      ok: false,
      timeline: followed.timeline.slice(0, 1),
      mismatch:
        'after external-resizer grows the PV: expected NodeResizePending; the tracker shows ControllerResizing (WaitingForResizer)',
    };
    assert.match(
      formatDemoExpansion(stuck),
      /VolumeExpansion default\/vm2-disk-0-v2abc-20gi {2}<-- MISMATCH\n[^]*\n {4}MISMATCH: after external-resizer grows the PV: expected NodeResizePending; the tracker shows ControllerResizing \(WaitingForResizer\)\n$/,
    );
    const summary = formatDemoSummary(report([followed, stuck]));
    assert.include(
      summary,
      '2 admitted resizes followed by the voe tracker (http://127.0.0.1:2/metrics, stopped again): 1 NodeResizePending (NodeResizePending), 1 not as expected.\n' +
        "1 expansion(s) did not go through the tracker's phases as expected: default/vm2-disk-0-v2abc-20gi.\n",
    );
  });

  it('prints no tracker lines and no status table when nothing was followed', () => {
    assert.notInclude(formatDemoSummary(report([])), 'tracker');
    assert.strictEqual(formatDemoStatus(report([]), 0), '');
  });
});

describe('voe demo --vm: the timeline as printed', () => {
  const report: VmDemoReport = {
    domain: 'vm-lab_demo-vm',
    bootMs: 6400,
    webhookUrl: 'https://127.0.0.1:1',
    trackerUrl: 'http://127.0.0.1:2',
    ok: true,
    df: {
      before: {
        mountPoint: '/mnt/data',
        filesystem: '/dev/vda',
        sizeBytes: '1023303680',
        usedBytes: '24576',
        availableBytes: '956178432',
      },
      after: {
        mountPoint: '/mnt/data',
        filesystem: '/dev/vda',
        sizeBytes: '2097012736',
        usedBytes: '28672',
        availableBytes: '1987641344',
      },
    },
    expansion: {
      expansion: 'vm-lab/demo-vm-disk-0-lab01-2gi',
      pvc: 'vm-lab/demo-vm-disk-0-lab01',
      vm: 'demo-vm',
      from: '1Gi',
      to: '2Gi',
      expected: { phase: 'Completed' },
      ok: true,
      timeline: [
        {
          actor: 'voe webhook',
          action: 'admitted the resize',
          phase: 'ControllerResizing',
          waitingFor: 'external-resizer',
          reason: 'WaitingForResizer',
          message: 'waiting',
          atMs: 80,
        },
        {
          actor: 'virt-controller',
          action: 'copies the size into the VMI',
          phase: 'HypervisorResizing',
          waitingFor: 'virt-handler',
          reason: 'WaitingForHypervisor',
          message: 'below',
          atMs: 1200,
          actMs: 30,
          afterMs: 150,
          hypervisor: String(1024 ** 3),
          guest: String(1024 ** 3),
        },
        {
          actor: 'virt-handler',
          action: "virsh blockresize to the device's size",
          phase: 'Completed',
          reason: 'GuestSeesNewSize',
          message: 'The guest of demo-vm sees disk vda at 2147483648 bytes.',
          atMs: 2050,
          actMs: 310,
          afterMs: 480,
          hypervisor: String(2 * 1024 ** 3),
          guest: String(2 * 1024 ** 3),
        },
        {
          actor: 'voe tracker',
          action: "grows the guest's filesystem",
          phase: 'Completed',
          reason: 'GuestFilesystemGrown',
          message: 'The filesystem on /mnt/data grew.',
          atMs: 3900,
          hypervisor: String(2 * 1024 ** 3),
          guest: String(2 * 1024 ** 3),
          guestFilesystem: {
            result: 'Grown',
            mountPoint: '/mnt/data',
            beforeBytes: '1023303680',
            afterBytes: '2097012736',
          },
        },
      ],
    },
  };

  it('one row per write: when after the edit, who, the phase, the write, the tracker, both sizes', () => {
    const text = formatVmDemo(report);
    assert.include(
      text,
      'Domain vm-lab_demo-vm (booted in 6.40 s): PVC vm-lab/demo-vm-disk-0-lab01 1Gi -> 2Gi, VolumeExpansion vm-lab/demo-vm-disk-0-lab01-2gi\n',
    );
    const rows = text
      .split('\n')
      .filter((line) => / (voe webhook|virt-controller|virt-handler|voe tracker) {2}/.test(line));
    assert.lengthOf(rows, 4);
    assert.match(
      rows[0]!,
      /^ {2}0\.08 s +voe webhook +ControllerResizing \(external-resizer\) +- +-$/,
    );
    assert.match(
      rows[1]!,
      /^ {2}1\.20 s +virt-controller +HypervisorResizing \(virt-handler\) +30 ms +150 ms +1\.00 GiB +1\.00 GiB$/,
    );
    assert.match(
      rows[2]!,
      /^ {2}2\.05 s +virt-handler +Completed +310 ms +480 ms +2\.00 GiB +2\.00 GiB$/,
    );
    assert.match(
      rows[3]!,
      /^ {2}3\.90 s +voe tracker +Completed +2\.00 GiB +2\.00 GiB +Grown 0\.95 GiB -> 1\.95 GiB$/,
    );
    assert.include(text, 'The filesystem on /mnt/data grew.');
    assert.include(text, "to the guest's own view of the disk");
  });

  it("the guest's df before the edit and after Completed, and the growth", () => {
    const text = formatVmDemo(report);
    assert.include(text, "The guest's df -P -B1 /mnt/data (/dev/vda):\n");
    assert.match(
      text,
      /\n {2}before the edit: +1023303680 bytes \(0\.95 GiB\), 24576 used, 956178432 available\n/,
    );
    assert.match(
      text,
      /\n {2}after Completed: +2097012736 bytes \(1\.95 GiB\), 28672 used, 1987641344 available\n/,
    );
    assert.include(text, 'the filesystem grew by 1073709056 bytes (1.00 GiB)');
  });

  it("says so when the guest's df did not grow after Completed", () => {
    const text = formatVmDemo({
      ...report,
      ok: false,
      df: { ...report.df, after: report.df.before },
    });
    assert.include(text, 'the filesystem grew by 0 bytes');
    assert.include(text, "The guest's df does not show a larger filesystem after Completed.");
  });

  it('says MISMATCH when a phase was not shown', () => {
    const text = formatVmDemo({
      ...report,
      ok: false,
      df: { before: report.df.before },
      expansion: {
        ...report.expansion,
        ok: false,
        mismatch: 'after virt-handler: expected Completed',
      },
    });
    assert.include(text, '<-- MISMATCH');
    assert.include(text, 'MISMATCH: after virt-handler: expected Completed');
    assert.include(text, 'after Completed:  not read (the expansion did not complete)');
  });
});
