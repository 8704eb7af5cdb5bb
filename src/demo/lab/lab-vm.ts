import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitUntil } from '../../wait/index.js';
import {
  LOCAL_LIBVIRT_URI,
  parseAgentReturn,
  parseExecPid,
  parseExecStatus,
  type ExecStatus,
} from '../../vmwatcher/index.js';
import { GUEST_READY_LINE, type GuestAgentMode } from './guest-init.js';
import { guestImage, type GuestImage } from './guest-initramfs.js';
import { labDiskXml, labDomainXml, type LabDisk } from './lab-domain.js';
import { createLabVolume, type LabVolume } from './lab-volume.js';
import { VmLabError } from './vm-lab-error.js';

const run = promisify(execFile);

export interface LabVmOptions {
  /** The voe cache (the unpacked packages, the initramfs). */
  cacheDir: string;
  /** The VMI this domain stands for: the domain is `<namespace>_<name>`. */
  namespace: string;
  name: string;
  disks: ReadonlyArray<Omit<LabDisk, 'file'> & { bytes: bigint }>;
  agent?: GuestAgentMode;
  /** false: virtio-scsi does not tell the guest of a new capacity (it must rescan; see LabDomainSpec). */
  scsiChangeEvents?: boolean;
  /** The guest's device to make an ext2 filesystem on and mount on /data at boot (see GUEST_INIT). */
  filesystemOn?: string;
  /** A NIC on QEMU's user-mode network: the guest reaches the host's loopback at 10.0.2.2 (see LabDomainSpec). */
  userNetwork?: boolean;
  /** How long the guest may take to boot (its agent answering, or its ready line); default 90 s. */
  bootTimeoutMs?: number;
}

/** A running lab domain and what the lab's actors do with it. */
export interface LabVm {
  domain: string;
  workDir: string;
  disks: LabDisk[];
  /** How long the boot took (ms), for the timeline. */
  bootMs: number;
  /** The storage behind a disk (its PVC): what the storage's and kubelet's steps grow. */
  volume(target: string): LabVolume;
  /** virt-launcher's part: `virsh blockresize <domain> <target> <bytes>B` (QMP block_resize). */
  blockResize(target: string, bytes: bigint): Promise<void>;
  /**
   * A command in the guest through the agent (what a user does there, e.g. a SCSI rescan), with
   * what it reads on its standard input when given (guest-exec's input-data).
   */
  guestExec(path: string, args: readonly string[], stdin?: string): Promise<ExecStatus>;
  /** `virsh` against the lab's libvirt, arguments as an array. */
  virsh(args: readonly string[]): Promise<string>;
  consoleLog(): Promise<string>;
  /** Destroys the domain and removes its files. Idempotent. */
  destroy(): Promise<void>;
}

async function virsh(args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run('virsh', ['-c', LOCAL_LIBVIRT_URI, ...args], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `virsh ${args[0] ?? ''} failed: ${stderr || (error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Boots a lab domain as KubeVirt would name and shape it (docs/tracker.md "The VM lab"): the lab guest's
 * kernel and cached initramfs, each disk's storage in a fresh directory (createLabVolume: a
 * sparse raw file for Block mode, disk.img on an XFS loop volume for Filesystem mode; the kernel
 * and initramfs copied there too: QEMU runs as libvirt-qemu and may not read the cache),
 * a transient domain (`virsh create`), ready once its agent answers guest-ping (or, without an
 * agent, once its console shows the ready line), then its hotplugged disks attached. destroy()
 * removes it all.
 */
export async function startLabVm(options: LabVmOptions): Promise<LabVm> {
  const image = await guestImage(options.cacheDir);
  const domain = `${options.namespace}_${options.name}`;
  const agent = options.agent ?? 'on';
  const workDir = await mkdtemp(join(tmpdir(), 'voe-vm-lab-'));
  await chmod(workDir, 0o755);
  const disks: LabDisk[] = [];
  const volumes = new Map<string, LabVolume>();
  const consoleLog = join(workDir, 'console.log');
  let created = false;
  const destroy = async (): Promise<void> => {
    if (created) await virsh(['destroy', domain]).catch(() => undefined);
    created = false;
    for (const volume of volumes.values()) await volume.release();
    await rm(workDir, { recursive: true, force: true });
  };
  const started = performance.now();
  try {
    for (const disk of options.disks) {
      const volume = await createLabVolume(
        workDir,
        disk.target,
        disk.bytes,
        disk.volumeMode ?? 'Block',
      );
      volumes.set(disk.target, volume);
      disks.push({
        file: volume.file,
        target: disk.target,
        bus: disk.bus,
        ...(disk.device ? { device: disk.device } : {}),
        ...(disk.hotplug ? { hotplug: true } : {}),
        ...(disk.serial ? { serial: disk.serial } : {}),
        ...(disk.volumeMode ? { volumeMode: disk.volumeMode } : {}),
      });
    }
    const xmlFile = await writeDomainFiles(workDir, image, domain, agent, disks, options);
    // A transient domain of the same name left by an interrupted run goes first.
    await virsh(['destroy', domain]).catch(() => undefined);
    await virsh(['create', xmlFile]);
    created = true;
    await waitForBoot(domain, agent, consoleLog, options.bootTimeoutMs ?? 90_000);
    await hotplugDisks(workDir, domain, disks);
  } catch (error) {
    const console = await readFile(consoleLog, 'utf8').catch(() => '');
    await destroy();
    if (error instanceof VmLabError && error.code !== 'VMLAB_DOMAIN_FAILED') throw error;
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `the lab domain ${domain} did not boot: ${(error as Error).message}${console ? `; its console ends with: ${console.trim().split('\n').slice(-5).join(' | ')}` : ''}`,
      { cause: error },
    );
  }
  return labVm(domain, workDir, disks, volumes, Math.round(performance.now() - started), destroy);
}

/** The kernel and initramfs copies, the console file and the domain's XML in `workDir`; the XML's path. */
async function writeDomainFiles(
  workDir: string,
  image: GuestImage,
  domain: string,
  agent: GuestAgentMode,
  disks: readonly LabDisk[],
  options: LabVmOptions,
): Promise<string> {
  const vmlinuz = join(workDir, 'vmlinuz');
  const initramfs = join(workDir, 'initramfs.gz');
  await copyFile(image.vmlinuz, vmlinuz);
  await copyFile(image.initramfs, initramfs);
  // libvirt hands the console file to QEMU (which runs as libvirt-qemu) by relabelling it: it must exist.
  const consoleLog = join(workDir, 'console.log');
  await writeFile(consoleLog, '');
  const xmlFile = join(workDir, 'domain.xml');
  await writeFile(
    xmlFile,
    labDomainXml({
      name: domain,
      vmlinuz,
      initramfs,
      disks,
      agent,
      consoleLog,
      ...(options.scsiChangeEvents === false ? { scsiChangeEvents: false } : {}),
      ...(options.filesystemOn ? { filesystemOn: options.filesystemOn } : {}),
      ...(options.userNetwork ? { userNetwork: true } : {}),
    }),
  );
  return xmlFile;
}

/**
 * The hotplugged disks attached to the running domain, one `virsh attach-device --live` each, as
 * virt-launcher's hotplug does (libvirt gives each its address on the controller).
 */
async function hotplugDisks(
  workDir: string,
  domain: string,
  disks: readonly LabDisk[],
): Promise<void> {
  for (const disk of disks.filter((d) => d.hotplug === true)) {
    const file = join(workDir, `hotplug-${disk.target}.xml`);
    await writeFile(file, labDiskXml(disk));
    await virsh(['attach-device', domain, file, '--live']);
  }
}

/** The running domain's handle. */
function labVm(
  domain: string,
  workDir: string,
  disks: LabDisk[],
  volumes: ReadonlyMap<string, LabVolume>,
  bootMs: number,
  destroy: () => Promise<void>,
): LabVm {
  return {
    domain,
    workDir,
    disks,
    bootMs,
    volume: (target) => {
      const volume = volumes.get(target);
      if (!volume)
        throw new VmLabError(
          'VMLAB_DOMAIN_FAILED',
          `the lab domain ${domain} has no disk ${target}`,
        );
      return volume;
    },
    blockResize: async (target, bytes) => {
      await virsh(['blockresize', domain, target, `${bytes}B`]);
    },
    guestExec: (path, args, stdin) => agentExec(domain, path, args, stdin),
    virsh,
    consoleLog: () => readFile(join(workDir, 'console.log'), 'utf8').catch(() => ''),
    destroy,
  };
}

async function waitForBoot(
  domain: string,
  agent: GuestAgentMode,
  consoleLog: string,
  timeoutMs: number,
): Promise<void> {
  const ready =
    agent === 'off'
      ? async () => (await readFile(consoleLog, 'utf8').catch(() => '')).includes(GUEST_READY_LINE)
      : async () => {
          try {
            parseAgentReturn(
              await virsh([
                'qemu-agent-command',
                '--timeout',
                '2',
                domain,
                '{"execute":"guest-ping"}',
              ]),
              'guest-ping',
            );
            return true;
          } catch {
            return false;
          }
        };
  const outcome = await waitUntil(ready, { timeoutMs, intervalMs: 250 });
  if (outcome !== 'ok')
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `its guest ${agent === 'off' ? 'printed no ready line' : 'agent did not answer guest-ping'} within ${timeoutMs} ms`,
    );
}

/** guest-exec (its standard input base64 in input-data), then guest-exec-status until the command exited (up to 30 s). */
async function agentExec(
  domain: string,
  path: string,
  args: readonly string[],
  stdin?: string,
): Promise<ExecStatus> {
  const pid = parseExecPid(
    await virsh([
      'qemu-agent-command',
      domain,
      JSON.stringify({
        execute: 'guest-exec',
        arguments: {
          path,
          arg: args,
          'capture-output': true,
          ...(stdin === undefined ? {} : { 'input-data': Buffer.from(stdin).toString('base64') }),
        },
      }),
    ]),
  );
  let status: ExecStatus | undefined;
  const outcome = await waitUntil(
    async () => {
      status = parseExecStatus(
        await virsh([
          'qemu-agent-command',
          domain,
          JSON.stringify({ execute: 'guest-exec-status', arguments: { pid } }),
        ]),
      );
      return status.exited;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  if (outcome !== 'ok')
    throw new VmLabError('VMLAB_DOMAIN_FAILED', `${path} did not exit in the guest of ${domain}`);
  return status!;
}
