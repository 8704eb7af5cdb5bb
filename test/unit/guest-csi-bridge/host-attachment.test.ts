import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  DEFAULT_CONTROLLER_TIMEOUTS,
  type ControllerDeps,
} from '../../../src/guest-csi-bridge/controller/controller-deps.js';
import {
  describeAttachmentElsewhere,
  hostAttachmentOf,
  type HostAttachment,
} from '../../../src/guest-csi-bridge/controller/host-attachment-elsewhere.js';
import { publishVolume } from '../../../src/guest-csi-bridge/controller/publish-volume.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { CsiError, isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import type {
  HostPvc,
  HostVm,
  HostVmi,
  HostVolumeAttachment,
} from '../../../src/guest-csi-bridge/host/host-objects.js';
import type { ControllerPublishVolumeRequest } from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';

const VOLUME = 'pvc-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const PV = 'pvc-host-0a1b2c3d';
const NODE = 'guest-node-1';

const pvc = (volumeMode: string | undefined, volumeName: string | undefined = PV): HostPvc => ({
  metadata: { name: VOLUME, resourceVersion: '1' },
  spec: {
    ...(volumeMode ? { volumeMode } : {}),
    ...(volumeName ? { volumeName } : {}),
  },
  status: { phase: 'Bound', capacity: { storage: '1Gi' } },
});
const vmiOn = (nodeName: string | undefined, migrationState?: object): HostVmi => ({
  metadata: { name: NODE, resourceVersion: '1' },
  status: {
    ...(nodeName ? { nodeName } : {}),
    ...(migrationState ? { migrationState } : {}),
    volumeStatus: [],
  },
});
const va = (
  pv: string,
  nodeName: string,
  attacher = 'driver.longhorn.io',
): HostVolumeAttachment => ({
  metadata: { name: `csi-${pv}-${nodeName}` },
  spec: { attacher, nodeName, source: { persistentVolumeName: pv } },
  status: { attached: true },
});

describe('hostAttachmentOf: the host attachments of a volume against its VMI node', () => {
  const table: Array<
    [string, HostPvc, HostVmi | undefined, HostVolumeAttachment[], HostAttachment]
  > = [
    ['a Filesystem PVC', pvc('Filesystem'), vmiOn('h1'), [va(PV, 'h2')], { state: 'unchecked' }],
    [
      'a PVC without volumeMode',
      pvc(undefined),
      vmiOn('h1'),
      [va(PV, 'h2')],
      { state: 'unchecked' },
    ],
    ['a Block PVC not bound to a PV', pvc('Block', ''), vmiOn('h1'), [], { state: 'unchecked' }],
    ['no attachment at all', pvc('Block'), vmiOn('h1'), [], { state: 'settled' }],
    [
      "attached on the VMI's node only",
      pvc('Block'),
      vmiOn('h1'),
      [va(PV, 'h1')],
      { state: 'settled' },
    ],
    [
      'another PV attached elsewhere',
      pvc('Block'),
      vmiOn('h1'),
      [va('pv-other', 'h2')],
      { state: 'settled' },
    ],
    [
      'the target of a migration attached before the handoff',
      pvc('Block'),
      vmiOn('h1'),
      [va(PV, 'h1'), va(PV, 'h2')],
      { state: 'elsewhere', pv: PV, vmiNode: 'h1', nodes: ['h2'] },
    ],
    [
      'the source still attached after the handoff',
      pvc('Block'),
      vmiOn('h2'),
      [va(PV, 'h1'), va(PV, 'h2')],
      { state: 'elsewhere', pv: PV, vmiNode: 'h2', nodes: ['h1'] },
    ],
    [
      'any attacher counts, as in Harvester',
      pvc('Block'),
      vmiOn('h1'),
      [va(PV, 'h3', 'other.csi.example.com'), va(PV, 'h2')],
      { state: 'elsewhere', pv: PV, vmiNode: 'h1', nodes: ['h2', 'h3'] },
    ],
    [
      'a VMI on no node yet: every attachment is elsewhere',
      pvc('Block'),
      vmiOn(undefined),
      [va(PV, 'h1')],
      { state: 'elsewhere', pv: PV, vmiNode: '', nodes: ['h1'] },
    ],
    [
      'no VMI: every attachment is elsewhere',
      pvc('Block'),
      undefined,
      [va(PV, 'h1')],
      { state: 'elsewhere', pv: PV, vmiNode: '', nodes: ['h1'] },
    ],
  ];
  for (const [name, claim, vmi, attachments, expected] of table)
    it(`${name}: ${expected.state}`, () => {
      assert.deepStrictEqual(hostAttachmentOf(claim, vmi, attachments), expected);
    });

  it('the message names the nodes, the VMI and a migration in progress', () => {
    const vmi = vmiOn('h1', { sourceNode: 'h1', targetNode: 'h2' });
    const attachment = hostAttachmentOf(pvc('Block'), vmi, [va(PV, 'h2')]);
    assert.strictEqual(attachment.state, 'elsewhere');
    if (attachment.state !== 'elsewhere') return;
    assert.strictEqual(
      describeAttachmentElsewhere(VOLUME, `guests/${NODE}`, vmi, attachment),
      `volume ${VOLUME} (host PV ${PV}) has a host VolumeAttachment on h2, another host node than h1, where VirtualMachineInstance guests/${NODE} runs (a live migration from h1 to h2 is in progress); retry once the host has settled it`,
    );
    const done = vmiOn('h1', { sourceNode: 'h1', targetNode: 'h2', completed: true });
    assert.notInclude(
      describeAttachmentElsewhere(VOLUME, 'guests/x', done, attachment),
      'migration',
    );
  });
});

/** A host whose VolumeAttachments and VMI node follow `steps`, one step per read of the attachments. */
function migratingHost(
  steps: Array<{ nodeName: string; attachments: HostVolumeAttachment[] }>,
  reads: { count: number },
  listAnswer?: () => Promise<HostVolumeAttachment[]>,
): HostApi {
  const step = (): (typeof steps)[number] => steps[Math.min(reads.count, steps.length - 1)]!;
  const vm: HostVm = {
    metadata: { name: NODE, resourceVersion: '1' },
    spec: {
      template: {
        spec: {
          volumes: [
            { name: VOLUME, persistentVolumeClaim: { claimName: VOLUME, hotpluggable: true } },
          ],
          domain: { devices: { disks: [{ name: VOLUME, disk: { bus: 'scsi' } }] } },
        },
      },
    },
  };
  const vmi = (): HostVmi => ({
    metadata: { name: NODE, resourceVersion: '1' },
    status: {
      nodeName: step().nodeName,
      volumeStatus: [{ name: VOLUME, target: 'sda', phase: 'Ready', hotplugVolume: {} }],
    },
  });
  return {
    namespace: 'guests',
    getPvc: async () => pvc('Block'),
    getVm: async () => vm,
    getVmi: async () => vmi(),
    listVms: async () => [vm],
    listVmis: async () => [vmi()],
    listVolumeAttachments: async () => {
      if (listAnswer) return listAnswer();
      const { attachments } = step();
      reads.count++;
      return attachments;
    },
    waitForVmi: async () => vmi(),
  } as unknown as HostApi;
}

const depsFor = (
  host: HostApi,
  attachmentMs = DEFAULT_CONTROLLER_TIMEOUTS.attachmentMs,
): ControllerDeps => ({
  hosts: { defaultHost: host, forSecrets: () => host },
  hostStorageClass: undefined,
  settingName: 'csi-online-expand-validation',
  locks: new VolumeLocks(),
  timeouts: { ...DEFAULT_CONTROLLER_TIMEOUTS, attachmentMs },
});
const REQUEST = {
  volume_id: VOLUME,
  node_id: NODE,
  volume_capability: { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } },
  secrets: {},
} as unknown as ControllerPublishVolumeRequest;
const ctxWith = (signal: AbortSignal) => ({
  signal,
  deadline: undefined,
  log: captureLogger().logger,
});

describe('publishVolume: a Block volume whose host attachment is elsewhere', () => {
  it('waits through a migration (target attached, handoff, source detached), then answers', async function () {
    this.timeout(10_000);
    const reads = { count: 0 };
    const host = migratingHost(
      [
        { nodeName: 'h1', attachments: [va(PV, 'h1'), va(PV, 'h2')] },
        { nodeName: 'h2', attachments: [va(PV, 'h1'), va(PV, 'h2')] },
        { nodeName: 'h2', attachments: [va(PV, 'h2')] },
      ],
      reads,
    );
    const answer = await publishVolume(
      depsFor(host),
      REQUEST,
      ctxWith(new AbortController().signal),
    );
    assert.deepStrictEqual(answer, { publish_context: {} });
    assert.strictEqual(reads.count, 3, 'read until the source attachment was gone');
  });

  const ends: Array<[string, (deps: ControllerDeps) => Promise<unknown>]> = [
    [
      'its wait time passes',
      (deps) =>
        publishVolume(
          { ...deps, timeouts: { ...deps.timeouts, attachmentMs: 300 } },
          REQUEST,
          ctxWith(new AbortController().signal),
        ),
    ],
    [
      'the call is cancelled (or its deadline is near)',
      (deps) => {
        const cancel = new AbortController();
        setTimeout(() => cancel.abort('cancelled by the client'), 300);
        return publishVolume(deps, REQUEST, ctxWith(cancel.signal));
      },
    ],
  ];
  for (const [name, call] of ends)
    it(`${name}: ABORTED (CSI_HOST_ATTACHMENT_ELSEWHERE) naming the node, the volume let go at once`, async () => {
      const host = migratingHost([{ nodeName: 'h1', attachments: [va(PV, 'h2')] }], { count: 0 });
      const deps = depsFor(host);
      const started = Date.now();
      const failure = await call(deps).then(
        () => assert.fail('expected CSI_HOST_ATTACHMENT_ELSEWHERE'),
        (error: unknown) => error,
      );
      assert.isTrue(isCsiError(failure, 'CSI_HOST_ATTACHMENT_ELSEWHERE'), String(failure));
      assert.match((failure as Error).message, /on h2, another host node than h1/);
      assert.isBelow(Date.now() - started, 1_500, 'ends with the wait, not after a poll interval');
      assert.strictEqual(deps.locks.size, 0);
    });

  it('host credentials that may not list VolumeAttachments (403): published without the check, logged', async () => {
    const host = migratingHost([{ nodeName: 'h1', attachments: [] }], { count: 0 }, async () => {
      throw new CsiError(
        'CSI_HOST_REQUEST_FAILED',
        'listing VolumeAttachments: the host answered 403',
        {
          details: { httpStatus: 403 },
        },
      );
    });
    const log = captureLogger();
    const answer = await publishVolume(depsFor(host), REQUEST, {
      signal: new AbortController().signal,
      deadline: undefined,
      log: log.logger,
    });
    assert.deepStrictEqual(answer, { publish_context: {} });
    assert.include(log.text(), 'may not list VolumeAttachments');
  });

  it('another host failure is the answer (the attacher retries)', async () => {
    const host = migratingHost([{ nodeName: 'h1', attachments: [] }], { count: 0 }, async () => {
      throw new CsiError(
        'CSI_HOST_UNAVAILABLE',
        'listing VolumeAttachments: the host API did not answer',
      );
    });
    const failure = await publishVolume(
      depsFor(host),
      REQUEST,
      ctxWith(new AbortController().signal),
    ).then(
      () => assert.fail('expected CSI_HOST_UNAVAILABLE'),
      (error: unknown) => error,
    );
    assert.isTrue(isCsiError(failure, 'CSI_HOST_UNAVAILABLE'), String(failure));
  });
});
