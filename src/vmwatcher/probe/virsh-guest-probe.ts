import { physicalDriveNumber } from '../../fsresize/index.js';
import { readWindowsDisk } from '../../guest-grow/index.js';
import { exponentialDelay, realClock, type BackoffOptions, type Clock } from '../../kube/index.js';
import type { GuestProbe, ProbeReading, ProbeTarget } from '../guest-probe.js';
import {
  GUEST_BLOCK_SCRIPT,
  parseGuestBlockDevices,
  type GuestBlockDevice,
} from './guest-block-devices.js';
import { GuestProbeError } from './guest-probe-error.js';
import type { FilesystemList, GuestFilesystem } from './filesystem-list.js';
import { filesystemOfDisk, type FilesystemMatch } from './filesystem-of-disk.js';
import { physicalDriveOfDisk } from './physical-drive-of-disk.js';
import { parseDomainDisks, type DomainDisk } from './domain-disks.js';
import { matchDeviceByAddress } from './match-device-by-address.js';
import { describeGuestDevices, matchGuestDevice } from './match-guest-device.js';
import { isGuestExecRefused, isProgramMissing, parseDomblkinfo } from './virsh-output.js';
import { virshGuestAgent } from './virsh-guest-agent.js';
import type { VirshHost, VirshTransport } from './virsh-transport.js';
import {
  agentConnected,
  diskIdentity,
  domainName,
  windowsGuest,
  type DiskIdentity,
} from './vmi-disk.js';

export interface VirshGuestProbeOptions {
  /** Where virsh runs: pods/exec into virt-launcher (production) or a local process (the lab). */
  transport: VirshTransport;
  /** The fallback when the guest refuses guest-exec; none: the guest's size stays unknown. */
  filesystems?: FilesystemList;
  /** How long one probe of a disk may take, virsh calls and guest-exec included; default 20 s. */
  timeoutMs?: number;
  /** The pause before probing a VM again after a probe that could not reach it, growing per failure; default 1 s doubling to 2 min. */
  backoff?: BackoffOptions;
  /** How often guest-exec-status is asked until the guest's command exited; default 50 ms. */
  execPollMs?: number;
  clock?: Clock;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 20_000;
const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 120_000 };

/** A VM's failed probes in a row: how many, the last one's message, and when it may be probed again. */
interface Failures {
  count: number;
  message: string;
  retryAt: number;
}

/**
 * The production GuestProbe (docs/tracker.md "Guest probe"): for one disk of a running VMI, the
 * hypervisor's capacity from `virsh domblkinfo <namespace>_<vmi> <target>`, and the guest's size
 * of the same disk from `virsh qemu-agent-command` guest-exec reading /sys/block/<dev>/size (the
 * device found by the disk's serial, else by bus and target). When the guest refuses guest-exec,
 * the size of the disk's largest filesystem from the filesystem list (evidence: Filesystem).
 * With no AgentConnected condition the guest is not asked: the reading says GuestUnverifiable
 * and keeps the hypervisor's size. One probe per VM at a time (the others wait their turn), each
 * bounded by timeoutMs; after a probe that could not read the hypervisor's size the VM is not
 * probed again before its backoff ran out (the reading then repeats the failure).
 */
export class VirshGuestProbe implements GuestProbe {
  readonly #o: VirshGuestProbeOptions;
  readonly #clock: Clock;
  /** The probe under way per domain: the next one of the same VM waits for it. */
  readonly #running = new Map<string, Promise<unknown>>();
  readonly #failures = new Map<string, Failures>();

  constructor(options: VirshGuestProbeOptions) {
    this.#o = options;
    this.#clock = options.clock ?? realClock;
  }

  async read(target: ProbeTarget, signal?: AbortSignal): Promise<ProbeReading> {
    const domain = domainName(target.vmi);
    const failed = this.#failures.get(domain);
    const now = this.#clock.now();
    if (failed && now < failed.retryAt)
      return {
        failure: `${failed.message} (${failed.count} failed in a row; next try in ${Math.ceil((failed.retryAt - now) / 1000)} s)`,
      };
    const before = this.#running.get(domain) ?? Promise.resolve();
    const run = before.then(
      () => this.#measure(target, domain, signal),
      () => this.#measure(target, domain, signal),
    );
    this.#running.set(domain, run);
    try {
      const reading = await run;
      // Only a VM that could not be reached at all backs off; the guest's side is read again on
      // the tracker's own schedule (which slows down while nothing changes).
      this.#settle(domain, reading.hypervisorBytes === undefined ? reading.failure : undefined);
      return reading;
    } finally {
      if (this.#running.get(domain) === run) this.#running.delete(domain);
    }
  }

  /** Counts a failure (backoff) or clears the VM's record. */
  #settle(domain: string, failure: string | undefined): void {
    if (failure === undefined) {
      this.#failures.delete(domain);
      return;
    }
    const count = (this.#failures.get(domain)?.count ?? 0) + 1;
    const delay = exponentialDelay(count, this.#o.backoff ?? DEFAULT_BACKOFF);
    this.#failures.set(domain, { count, message: failure, retryAt: this.#clock.now() + delay });
  }

  async #measure(
    target: ProbeTarget,
    domain: string,
    outer: AbortSignal | undefined,
  ): Promise<ProbeReading> {
    const timeoutMs = this.#o.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
    const host: VirshHost = {
      namespace: target.vmi.metadata?.namespace ?? '',
      launcherPod: target.launcherPod,
      ...(target.launcherUser === undefined ? {} : { launcherUser: target.launcherUser }),
    };
    let hypervisorBytes: bigint;
    try {
      if (!target.target)
        throw new GuestProbeError(
          'PROBE_NO_TARGET',
          `the VMI's volumeStatus gives volume ${target.volumeName} no target (vda, sda...) yet`,
        );
      const info = await this.#o.transport.virsh(
        host,
        ['domblkinfo', domain, target.target],
        signal,
      );
      hypervisorBytes = parseDomblkinfo(info).capacity;
    } catch (error) {
      return { failure: failureText(error) };
    }
    if (!agentConnected(target.vmi))
      return {
        hypervisorBytes,
        guestUnverifiable: `the VMI ${host.namespace}/${target.vmi.metadata?.name ?? ''} has no AgentConnected condition (no guest agent answers)`,
      };
    const disk = diskIdentity(target.vmi, target.volumeName, target.target);
    try {
      return { hypervisorBytes, ...(await this.#guestView(host, domain, disk, target, signal)) };
    } catch (error) {
      return { hypervisorBytes, failure: failureText(error) };
    }
  }

  /**
   * The guest's block device of the disk; the filesystem list when guest-exec is refused. A
   * Windows guest (guestOSInfo, or /bin/sh that guest-exec cannot start) has no shell to read its
   * disks with: windowsView.
   */
  async #guestView(
    host: VirshHost,
    domain: string,
    disk: DiskIdentity,
    target: ProbeTarget,
    signal: AbortSignal,
  ): Promise<ProbeReading> {
    const windows = windowsGuest(target.vmi);
    if (windows !== undefined)
      return this.#windowsView(host, domain, disk, target, signal, `the guest runs ${windows}`);
    let devices: GuestBlockDevice[];
    try {
      devices = parseGuestBlockDevices(await this.#guestExec(host, domain, signal));
    } catch (error) {
      if (error instanceof GuestProbeError && isProgramMissing(error.message))
        return this.#windowsView(
          host,
          domain,
          disk,
          target,
          signal,
          'guest-exec could not start /bin/sh in the guest, as in a Windows guest',
        );
      const refused =
        error instanceof GuestProbeError &&
        (error.code === 'PROBE_GUEST_EXEC_REFUSED' || isGuestExecRefused(error.message));
      if (!refused || !this.#o.filesystems) throw error;
      const match = await this.#filesystemOf(
        this.#o.filesystems,
        host,
        domain,
        disk,
        target,
        signal,
      );
      if (match.filesystem) return filesystemReading(match.filesystem);
      return {
        guestUnverifiable: `the guest refuses guest-exec, and in its filesystem list ${match.reason}`,
        guestUnverifiableRemedy:
          'Check the disk in the guest, or allow guest-exec in its agent (or give the VM disk a serial) so that voe can find it.',
      };
    }
    if (disk.serial === undefined)
      return this.#deviceByAddress(host, domain, disk, devices, signal);
    const device = matchGuestDevice(devices, disk);
    if (!device)
      throw new GuestProbeError(
        'PROBE_DEVICE_NOT_FOUND',
        `no guest block device matches disk ${describeDisk(disk)}; the guest has ${describeGuestDevices(devices)}`,
      );
    return { guestBytes: device.bytes, guestEvidence: 'BlockDevice', guestDevice: device.name };
  }

  /**
   * A disk without a serial (every Harvester VM's): its address from `virsh dumpxml`, then the
   * guest's device at that address (matchDeviceByAddress); never a device found by name. No
   * single device there: unverifiable, with the reason.
   */
  async #deviceByAddress(
    host: VirshHost,
    domain: string,
    disk: DiskIdentity,
    devices: readonly GuestBlockDevice[],
    signal: AbortSignal,
  ): Promise<ProbeReading> {
    const domainDisk = await this.#domainDisk(host, domain, disk, signal);
    const match = domainDisk
      ? matchDeviceByAddress(devices, domainDisk)
      : { reason: `virsh dumpxml ${domain} lists no disk ${disk.target ?? '?'}` };
    if (match.device)
      return {
        guestBytes: match.device.bytes,
        guestEvidence: 'BlockDevice',
        guestDevice: match.device.name,
      };
    return {
      guestUnverifiable: `${match.reason}, and the disk has no serial to find it by (the guest has ${describeGuestDevices(devices)})`,
      guestUnverifiableRemedy:
        'Check the disk in the guest (lsblk), or give the VM disk a serial (spec.domain.devices.disks[].serial) so that voe can find it.',
    };
  }

  /** The domain's disk at the VMI disk's target, as `virsh dumpxml` shows it. */
  async #domainDisk(
    host: VirshHost,
    domain: string,
    disk: DiskIdentity,
    signal: AbortSignal,
  ): Promise<DomainDisk | undefined> {
    return parseDomainDisks(await this.#o.transport.virsh(host, ['dumpxml', domain], signal)).find(
      (entry) => entry.target === disk.target,
    );
  }

  /** The disk's filesystem in the agent's list: by serial, else by the domain disk's address. */
  async #filesystemOf(
    list: FilesystemList,
    host: VirshHost,
    domain: string,
    disk: DiskIdentity,
    target: ProbeTarget,
    signal: AbortSignal,
  ): Promise<FilesystemMatch> {
    const filesystems = await list.read(target.vmi, host, signal);
    const domainDisk =
      disk.serial === undefined ? await this.#domainDisk(host, domain, disk, signal) : undefined;
    return filesystemOfDisk(filesystems, disk, domainDisk);
  }

  /**
   * A guest without a shell (Windows): the disk's \\.\PhysicalDriveN from the filesystem list
   * (physicalDriveOfDisk: by serial, else by address), and its size as Get-Disk reports it through
   * powershell.exe (evidence BlockDevice, the device \\.\PhysicalDriveN, which the guest growth
   * takes). Where no drive is found or powershell.exe cannot be run, the size of the disk's
   * filesystem from the same list (QGA guest-get-disks gives no sizes); else the guest is
   * unverifiable, with a reason naming Windows and what to check there, never a failure that
   * would end in NoProgress.
   */
  async #windowsView(
    host: VirshHost,
    domain: string,
    disk: DiskIdentity,
    target: ProbeTarget,
    signal: AbortSignal,
    why: string,
  ): Promise<ProbeReading> {
    const remedy =
      "Check the disk in the Windows guest (Disk Management, or Get-Disk in PowerShell) and extend its volume there; voe reads a Windows disk through the agent's filesystem list and Get-Disk in powershell.exe.";
    if (!this.#o.filesystems)
      return {
        guestUnverifiable: `${why}, where voe has no shell to read the disk's size, and no filesystem list is configured`,
        guestUnverifiableRemedy: remedy,
      };
    let filesystems: GuestFilesystem[];
    let domainDisk: DomainDisk | undefined;
    try {
      filesystems = await this.#o.filesystems.read(target.vmi, host, signal);
      domainDisk =
        disk.serial === undefined ? await this.#domainDisk(host, domain, disk, signal) : undefined;
    } catch (error) {
      return {
        guestUnverifiable: `${why}, where voe has no shell to read the disk's size, and reading its filesystem list failed (${failureText(error)})`,
        guestUnverifiableRemedy: remedy,
      };
    }
    const drive = physicalDriveOfDisk(filesystems, disk, domainDisk).drive;
    const bytes = drive ? await this.#windowsDiskBytes(host, domain, drive, signal) : undefined;
    if (drive && bytes !== undefined)
      return { guestBytes: bytes, guestEvidence: 'BlockDevice', guestDevice: drive };
    const match = filesystemOfDisk(filesystems, disk, domainDisk);
    if (match.filesystem) return filesystemReading(match.filesystem);
    return {
      guestUnverifiable: `${why}, where voe has no shell to read the disk's size, and in its filesystem list ${match.reason}`,
      guestUnverifiableRemedy: remedy,
    };
  }

  /**
   * The size of a Windows disk as Get-Disk reports it (readWindowsDisk, powershell.exe through
   * guest-exec); undefined when the guest does not give it (guest-exec refused, powershell.exe
   * failed or printed no such disk): the caller falls back to the disk's filesystem.
   */
  async #windowsDiskBytes(
    host: VirshHost,
    domain: string,
    drive: string,
    signal: AbortSignal,
  ): Promise<bigint | undefined> {
    const agent = virshGuestAgent(this.#o.transport, host, domain, {
      pollMs: this.#o.execPollMs ?? 50,
    });
    try {
      const timeoutMs = this.#o.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
      const found = await readWindowsDisk(agent, physicalDriveNumber(drive)!, timeoutMs, signal);
      return BigInt(found.bytes);
    } catch {
      return undefined;
    }
  }

  /** Runs GUEST_BLOCK_SCRIPT in the guest (virshGuestAgent: guest-exec, then guest-exec-status until it exited); its stdout. */
  async #guestExec(host: VirshHost, domain: string, signal: AbortSignal): Promise<string> {
    const agent = virshGuestAgent(this.#o.transport, host, domain, {
      pollMs: this.#o.execPollMs ?? 50,
    });
    const status = await agent.exec(
      {
        argv: ['/bin/sh', '-c', GUEST_BLOCK_SCRIPT],
        // libvirt's own bound on each agent call too, so that none outlives the probe where virsh runs.
        timeoutMs: this.#o.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
      },
      signal,
    );
    if (status.timedOut)
      throw new GuestProbeError(
        'PROBE_TIMEOUT',
        'the guest did not finish reading /sys/block in time',
      );
    if (status.exitCode !== 0)
      throw new GuestProbeError(
        'PROBE_VIRSH_FAILED',
        `reading /sys/block in the guest exited with ${status.exitCode ?? 'no code'}: ${status.stderr.trim().slice(0, 200)}`,
      );
    return status.stdout;
  }
}

/** A failure as the VolumeExpansion's message shows it: the code (docs/errors.md) and the message. */
function failureText(error: unknown): string {
  return error instanceof GuestProbeError
    ? `${error.code}: ${error.message}`
    : (error as Error).message;
}

/** A filesystem's size as the guest's evidence. */
function filesystemReading(filesystem: GuestFilesystem): ProbeReading {
  return {
    guestBytes: filesystem.totalBytes!,
    guestEvidence: 'Filesystem',
    ...(filesystem.mountPoint ? { guestDevice: filesystem.mountPoint } : {}),
  };
}

function describeDisk(disk: DiskIdentity): string {
  return disk.serial !== undefined
    ? `with serial ${disk.serial}`
    : `${disk.target ?? '?'} on bus ${disk.bus ?? 'unknown'}`;
}
