import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ControlPlane } from '../../../src/controlplane/index.js';
import { createScratch, hasCapSysResource, type Scratch } from '../fsresize/loop-device.js';
import { eventually } from '../eventually.js';
import { VOE_MAIN } from '../run-voe.js';
import { ensureCsiSanity } from './csi-sanity-binary.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  HOST_SNAPSHOT_CLASS,
  stageHostScene,
  stageHostSnapshotClass,
  writeHostKubeconfig,
} from './host-scene.js';
import { HostStorageActor } from './host-storage-actor.js';

const MiB = 1024 * 1024;
/** The volumes csi-sanity makes: room for any supported filesystem (xfs needs 300 MB), sparse on the host. */
export const SANITY_VOLUME_BYTES = 512 * MiB;
export const SANITY_EXPAND_BYTES = 1024 * MiB;

/** csi-sanity's (ginkgo's) summary lines: `Ran N of M Specs in ...` and `SUCCESS! -- N Passed | 0 Failed | 0 Pending | K Skipped`. */
export interface SanitySummary {
  ran: number;
  of: number;
  passed: number;
  failed: number;
  pending: number;
  skipped: number;
}

export interface SanityRun {
  accessType: 'mount' | 'block';
  exitCode: number | null;
  output: string;
  summary: SanitySummary | undefined;
}

export function parseSanitySummary(output: string): SanitySummary | undefined {
  const ran = /Ran (\d+) of (\d+) Specs/.exec(output);
  const counts = /(\d+) Passed \| (\d+) Failed \| (\d+) Pending \| (\d+) Skipped/.exec(output);
  if (!ran || !counts) return undefined;
  return {
    ran: Number(ran[1]),
    of: Number(ran[2]),
    passed: Number(counts[1]),
    failed: Number(counts[2]),
    pending: Number(counts[3]),
    skipped: Number(counts[4]),
  };
}

export interface SanityHarness {
  /** Runs csi-sanity against `voe csi` for one access type (with `extraArgs`, e.g. -ginkgo.v); `onOutput` gets its output as it comes. */
  run(
    accessType: 'mount' | 'block',
    onOutput?: (chunk: string) => void,
    extraArgs?: readonly string[],
  ): Promise<SanityRun>;
  /** What `voe csi` logged so far (JSON lines). */
  driverLog(): Promise<string>;
  /** The host kubeconfig text the csi-sanity secrets carry. */
  readonly secretKubeconfig: string;
  /** Its credentials (client key and certificate, base64): what must never appear in a log. */
  readonly secretValues: readonly string[];
  /** The filesystem `voe csi` makes on mount volumes here, and why. */
  readonly fsType: { name: 'ext4' | 'xfs'; why: string };
  stop(): Promise<void>;
}

/**
 * Everything csi-sanity runs against, on the host control plane `cp`: the host scene, the host
 * storage actor (loop devices as the guest's disks), and `voe csi` itself (the built CLI, a
 * process of its own, on a socket in a scratch directory, logging at debug level to a file).
 * Stop it to release it all: the driver first, then whatever it left mounted, then the loops.
 */
export async function startSanityHarness(
  cp: ControlPlane,
  onProgress: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<SanityHarness> {
  const csiSanity = await ensureCsiSanity({ onProgress });
  const scratch: Scratch = await createScratch('voe-csi-sanity-');
  let actor: HostStorageActor | undefined;
  let driver: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    if (driver && driver.exitCode === null && driver.signalCode === null) {
      const exited = once(driver, 'exit');
      driver.kill('SIGTERM');
      const timer = setTimeout(() => driver?.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await scratch.cleanup();
    await actor?.stop();
  };
  try {
    const dir = await scratch.directory('work');
    const deviceDirectory = join(dir, 'by-id');
    await stageHostScene(cp.kubeConfig);
    await stageHostSnapshotClass(cp.kubeConfig);
    const kubeconfigFile = join(dir, 'host.kubeconfig');
    await writeHostKubeconfig(cp.kubeConfig, kubeconfigFile);
    const secretKubeconfig = await readFile(kubeconfigFile, 'utf8');
    actor = new HostStorageActor({
      kubeConfig: cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
      deviceDirectory,
      snapshots: true,
    });
    await actor.start();
    // The calls that take secrets carry the host kubeconfig, as a StorageClass's secrets would:
    // the driver uses it for those calls and must never log it.
    const secretsFile = join(dir, 'secrets.yaml');
    const secrets = { kubeconfig: secretKubeconfig };
    await writeFile(
      secretsFile,
      stringify({
        CreateVolumeSecret: secrets,
        DeleteVolumeSecret: secrets,
        ControllerPublishVolumeSecret: secrets,
        ControllerUnpublishVolumeSecret: secrets,
        ControllerValidateVolumeCapabilitiesSecret: secrets,
        ControllerExpandVolumeSecret: secrets,
        NodeStageVolumeSecret: secrets,
        NodePublishVolumeSecret: secrets,
        CreateSnapshotSecret: secrets,
        DeleteSnapshotSecret: secrets,
        ListSnapshotsSecret: secrets,
      }),
      { mode: 0o600 },
    );
    // The guest VolumeSnapshotClass's parameters: the host class named, as an operator sets it.
    const snapshotParametersFile = join(dir, 'snapshot-parameters.yaml');
    await writeFile(snapshotParametersFile, stringify({ hostSnapshotClass: HOST_SNAPSHOT_CLASS }));
    const fsType: SanityHarness['fsType'] = (await hasCapSysResource())
      ? {
          name: 'ext4',
          why: 'the default (ext4 grows online with CAP_SYS_RESOURCE, which this process has)',
        }
      : {
          name: 'xfs',
          why: 'this process lacks CAP_SYS_RESOURCE, without which the kernel refuses to grow a mounted ext4 (resize2fs: Permission denied); xfs_growfs needs CAP_SYS_ADMIN only',
        };
    const socket = join(dir, 'csi.sock');
    const logFile = join(dir, 'voe-csi.log');
    const logFd = openSync(logFile, 'a', 0o600);
    driver = spawn(
      process.execPath,
      [
        VOE_MAIN,
        'csi',
        '--endpoint',
        `unix://${socket}`,
        '--node-id',
        GUEST_NODE,
        '--kubeconfig',
        kubeconfigFile,
        '--device-dir',
        deviceDirectory,
        '--default-fs-type',
        fsType.name,
        '--log-level',
        'debug',
      ],
      { stdio: ['ignore', logFd, logFd] },
    );
    closeSync(logFd);
    const driverLog = (): Promise<string> => readFile(logFile, 'utf8').catch(() => '');
    // Serving once it logs so (or gone: its log says why).
    const started = driver;
    await eventually(
      async () => (await driverLog()).includes('"msg":"serving CSI"'),
      60_000,
      'voe csi to serve',
      { giveUp: () => (started.exitCode === null ? undefined : 'voe csi exited') },
    ).catch(async (error: Error) => {
      throw new Error(
        `voe csi did not start (${error.message}): ${(await driverLog()).slice(-2000)}`,
      );
    });
    const user = (
      JSON.parse(secretKubeconfig) as { users: Array<{ user: Record<string, string> }> }
    ).users[0]?.user;
    const secretValues = [user?.['client-key-data'], user?.['client-certificate-data']].filter(
      (value): value is string => !!value,
    );
    return {
      secretKubeconfig,
      secretValues,
      fsType,
      driverLog,
      stop,
      async run(accessType, onOutput, extraArgs = []) {
        const args = [
          `-csi.endpoint=unix://${socket}`,
          `-csi.mountdir=${join(dir, `mount-${accessType}`)}`,
          `-csi.stagingdir=${join(dir, `staging-${accessType}`)}`,
          `-csi.testvolumesize=${SANITY_VOLUME_BYTES}`,
          `-csi.testvolumeexpandsize=${SANITY_EXPAND_BYTES}`,
          `-csi.testvolumeaccesstype=${accessType}`,
          `-csi.secrets=${secretsFile}`,
          `-csi.testsnapshotparameters=${snapshotParametersFile}`,
          '-ginkgo.no-color',
          ...extraArgs,
        ];
        const child = spawn(csiSanity, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        const take = (chunk: Buffer): void => {
          const text = chunk.toString('utf8');
          output += text;
          onOutput?.(text);
        };
        child.stdout.on('data', take);
        child.stderr.on('data', take);
        const [exitCode] = (await once(child, 'close')) as [number | null];
        return { accessType, exitCode, output, summary: parseSanitySummary(output) };
      },
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
