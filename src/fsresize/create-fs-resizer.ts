import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { BlockDeviceId, BlockDevices } from './block-devices.js';
import { chooseMount, type MountCandidate } from './choose-mount.js';
import type { CommandRunner } from './command-runner.js';
import { createDeviceLock, type DeviceLock, type ReleaseLock } from './device-lock.js';
import { formatBytePair } from './format-byte-pair.js';
import { formatBytes } from './format-bytes.js';
import { fsckExitText } from './fsck-exit-meaning.js';
import { FsResizeError, isFsResizeError } from './fsresize-error.js';
import {
  isSupportedFilesystem,
  type GrowOptions,
  type GrowResult,
  type Inspection,
  type PrecheckRan,
} from './inspection.js';
import { createMountinfoTable, type MountTable } from './mount-table.js';
import { mountPathForms } from './mount-path-forms.js';
import { needsResize } from './needs-resize.js';
import { parseBlkidExport } from './parse-blkid-export.js';
import { parseBtrfsDumpSuper } from './parse-btrfs-dump-super.js';
import {
  EXT_SUPERBLOCK_LENGTH,
  EXT_SUPERBLOCK_OFFSET,
  parseExtSuperblock,
} from './parse-ext-superblock.js';
import { isAnonymousMount, type MountEntry } from './parse-mountinfo.js';
import { parseXfsStatfs } from './parse-xfs-statfs.js';
import { xfsGrowfsAfterBytes } from './xfs-growfs-after-bytes.js';
import { XFS_SUPERBLOCK_LENGTH, parseXfsSuperblock } from './parse-xfs-superblock.js';
import { planGrow, type PlanOptions } from './plan-grow.js';
import { createSystemBlockDevices } from './system-block-devices.js';
import { systemPageSize } from './system-page-size.js';
import { fsckFailure, toolFailure } from './tool-failure.js';

export interface FsResizerOptions {
  /** Runs every external tool (production: createExecFileRunner()). */
  runner: CommandRunner;
  /** What is mounted (production: createMountinfoTable(), i.e. /proc/self/mountinfo). */
  mounts?: MountTable;
  /** Device facts (production: createSystemBlockDevices({runner})). */
  devices?: BlockDevices;
  /** One operation per device (production: createDeviceLock({directory: '/run/voe/fsresize'})). */
  lock?: DeviceLock;
  /** See PlanOptions.unreadableProcesses; default 'refuse'. */
  unreadableProcesses?: PlanOptions['unreadableProcesses'];
  /**
   * The system page size, to which resize2fs rounds an ext filesystem's new size down (see
   * extGrowTarget; Inspection.extPageBytes). Default: the kernel's (systemPageSize()).
   */
  pageBytes?: number;
  timeouts?: {
    /** Each inspection tool (blkid, xfs_io, btrfs dump-super); default 60 s. */
    probeMs?: number;
    /** The grow tool; default 30 min. */
    growMs?: number;
    /** Waiting for another operation on the same device; default 30 min. */
    lockMs?: number;
  };
}

export interface FsResizer {
  /** What is on the device and how big it is; changes nothing. */
  inspect(device: string, options?: { mountPath?: string }): Promise<Inspection>;
  /** Pure: whether the inspected filesystem is smaller than its device. */
  needsResize(inspection: Inspection): boolean;
  /** Grows the filesystem on `device` to fill it, or explains why it did nothing. Throws FsResizeError. */
  grow(device: string, options?: GrowOptions): Promise<GrowResult>;
}

/** How long a grow waits for another resize of the same device by default: longer than any grow. */
export const DEFAULT_LOCK_WAIT_MS = 30 * 60_000;

/** FSRESIZE_INTERRUPTED when a stop was asked for (GrowOptions.signal); `what` says where the grow stopped. */
function stopIfAsked(
  signal: AbortSignal | undefined,
  what: string,
  details?: Record<string, unknown>,
): void {
  if (!signal?.aborted) return;
  throw new FsResizeError(
    'FSRESIZE_INTERRUPTED',
    `stopped (${String(signal.reason ?? 'on request')}) ${what}`,
    details ? { details } : {},
  );
}

/**
 * How long a probe ended by a stop signal waits for voe's own stop to be seen: the probe's end and
 * the signal voe received reach it as two events, in either order.
 */
const STOP_SIGNAL_GRACE_MS = 1_000;

/** Resolves once `signal` aborts or `ms` have passed, whichever comes first. */
async function abortedWithin(signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return;
  const settled = new AbortController();
  await Promise.race([
    once(signal, 'abort', { signal: settled.signal }).catch(() => undefined),
    delay(ms, undefined, { signal: settled.signal }).catch(() => undefined),
  ]);
  settled.abort();
}

/** How often an offline grow looks for other users of the device before refusing, and how far apart. */
const USERS_LOOKS = 5;
const USERS_LOOK_INTERVAL_MS = 100;

/** Default lock directory for the command line and the node services. */
export const DEFAULT_LOCK_DIRECTORY = '/run/voe/fsresize';

/** Builds the shared filesystem-resize core used by `voe fsresize`, the FlexVolume driver and the CSI node service. */
export function createFsResizer(options: FsResizerOptions): FsResizer {
  const { runner } = options;
  const mounts = options.mounts ?? createMountinfoTable();
  const probeMs = options.timeouts?.probeMs ?? 60_000;
  const growMs = options.timeouts?.growMs ?? 30 * 60_000;
  const lockMs = options.timeouts?.lockMs ?? DEFAULT_LOCK_WAIT_MS;
  const devices = options.devices ?? createSystemBlockDevices({ runner, timeoutMs: probeMs });
  const lock = options.lock ?? createDeviceLock({ directory: DEFAULT_LOCK_DIRECTORY });
  const pageBytes = options.pageBytes ?? systemPageSize();
  const planOptions: PlanOptions =
    options.unreadableProcesses === undefined
      ? {}
      : { unreadableProcesses: options.unreadableProcesses };

  async function identify(device: string): Promise<BlockDeviceId> {
    if (typeof device !== 'string' || device.trim() === '') {
      throw new FsResizeError(
        'FSRESIZE_INVALID_ARGUMENT',
        'no device was given; pass the block device to grow (e.g. /dev/sdb)',
      );
    }
    return devices.identify(device);
  }

  interface Signature {
    filesystem: string | null;
    partitionTable: string | null;
    uuid: string | null;
  }
  const empty = (): Signature => ({ filesystem: null, partitionTable: null, uuid: null });

  async function probe(id: BlockDeviceId, spawned?: Set<number>): Promise<Signature> {
    const args = ['-p', '-s', 'TYPE', '-s', 'PTTYPE', '-s', 'UUID', '-o', 'export', id.realPath];
    const result = await runner.run('blkid', args, {
      timeoutMs: probeMs,
      ...(spawned ? { onSpawn: (pid: number) => spawned.add(pid) } : {}),
    });
    // blkid exits 2 when it finds nothing (an unformatted device), and also when it could not
    // look (it then says why on stderr, e.g. "error: /dev/sdb: Permission denied").
    if (result.exitCode === 2 && result.stderr.trim() === '') return empty();
    if (result.exitCode !== 0)
      throw toolFailure('blkid', args, result, `detecting what is on ${id.path}`);
    const signature = parseBlkidExport(result.stdout);
    return {
      filesystem: signature.type,
      partitionTable: signature.partitionTable,
      uuid: signature.uuid,
    };
  }

  /**
   * Whether a mountinfo entry is a filesystem with the device's own number: on that device,
   * whatever its source says (a name given at mount time, which may since name another device).
   * btrfs reports an anonymous number (major 0) instead; see deviceMounts.
   */
  function mountedByNumber(entry: MountEntry, id: BlockDeviceId): boolean {
    return entry.majorMinor === id.majorMinor;
  }

  /**
   * Every mountinfo entry of the device, each with whether its mount point shows it now (or why
   * that could not be seen). btrfs mounts carry an anonymous number and a source naming one of the
   * filesystem's devices: one is a mount of this device only when the device holds btrfs and the
   * kernel lists it among the devices of that mounted filesystem (/sys/fs/btrfs/<fsid>/devices),
   * and the source now leads to one of those devices. A source string alone is never enough: the
   * name may have been given to another device since (an ext4 taken for a mounted btrfs would be
   * grown offline under its users). The source of any other anonymous mount (tmpfs, FUSE, overlay)
   * names no device and is never resolved (it may lie on a filesystem that never answers).
   */
  async function deviceMounts(
    id: BlockDeviceId,
    signature: Signature,
    all: MountEntry[],
  ): Promise<MountCandidate[]> {
    const members =
      signature.filesystem === 'btrfs' && signature.uuid !== null
        ? await devices.btrfsDevices(signature.uuid)
        : null;
    const memberOf = members !== null && members.includes(id.majorMinor) ? members : null;
    const found = await Promise.all(
      all.map(async (entry): Promise<boolean> => {
        if (mountedByNumber(entry, id)) return true;
        if (
          memberOf === null ||
          !isAnonymousMount(entry) ||
          entry.fsType !== 'btrfs' ||
          !entry.source.startsWith('/')
        )
          return false;
        const source = await devices.identify(entry.source).catch(() => null);
        return source !== null && memberOf.includes(source.majorMinor);
      }),
    );
    const matches = all.filter((_entry, i) => found[i]);
    return Promise.all(
      matches.map(async (entry): Promise<MountCandidate> => {
        // Stacked: another filesystem is listed at the same mount point (one of the two hides the
        // other). Another mount of this same filesystem there is not: propagation lists every mount
        // twice on some nodes (kubernetes/kubernetes#56704), `mount --bind D D` does it too, and
        // whichever of them xfs_growfs finds first, it sizes the filesystem from this device.
        const stacked = all.some(
          (other) =>
            other !== entry &&
            other.mountPoint === entry.mountPoint &&
            other.majorMinor !== entry.majorMinor,
        );
        try {
          return {
            entry,
            visible: (await mounts.visibleMountId(entry.mountPoint)) === entry.mountId,
            stacked,
          };
        } catch (error) {
          // One mount point that cannot be opened (a dead FUSE mount...) makes that mount unusable,
          // not the device: chooseMount raises it only when no other mount can be used instead.
          if (!isFsResizeError(error)) throw error;
          return { entry, visible: false, stacked, unusable: error };
        }
      }),
    );
  }

  async function measure(
    id: BlockDeviceId,
    filesystem: string,
    mountPoint: string | null,
  ): Promise<{
    bytes: number;
    blockBytes: number;
    btrfs: Inspection['btrfs'];
    extCheckNeeded?: boolean;
    extErrors?: boolean;
    extPageBytes?: number;
    ext64bit?: boolean;
    extBigalloc?: boolean;
  }> {
    const unexpected = (what: string, output: string): FsResizeError =>
      new FsResizeError(
        'FSRESIZE_UNEXPECTED_OUTPUT',
        `could not read the size of ${filesystem} on ${id.path} from ${what}; nothing was changed${output ? ` (output: ${output.trim().slice(0, 300)})` : ''}`,
      );
    switch (filesystem) {
      case 'ext2':
      case 'ext3':
      case 'ext4': {
        // The fields `dumpe2fs -h` prints as Block count x Block size, read without a process.
        const superblock = parseExtSuperblock(
          await devices.read(id, EXT_SUPERBLOCK_OFFSET, EXT_SUPERBLOCK_LENGTH),
        );
        if (superblock === null) throw unexpected('its superblock (no ext magic)', '');
        return {
          bytes: superblock.bytes,
          blockBytes: superblock.blockSize,
          btrfs: null,
          extCheckNeeded: superblock.checkNeeded,
          extErrors: superblock.errorsRecorded,
          extPageBytes: pageBytes,
          ext64bit: superblock.bit64,
          extBigalloc: superblock.bigalloc,
        };
      }
      case 'xfs': {
        if (mountPoint === null) {
          const geometry = parseXfsSuperblock(await devices.read(id, 0, XFS_SUPERBLOCK_LENGTH));
          if (geometry === null) throw unexpected('its superblock (no XFSB magic)', '');
          return { bytes: geometry.bytes, blockBytes: geometry.blockSize, btrfs: null };
        }
        const args = ['-c', 'statfs', mountPoint];
        const result = await runner.run('xfs_io', args, { timeoutMs: probeMs });
        if (result.exitCode !== 0)
          throw toolFailure('xfs_io', args, result, `measuring xfs at ${mountPoint}`);
        const geometry = parseXfsStatfs(result.stdout);
        if (geometry === null) throw unexpected('xfs_io -c statfs', result.stdout);
        return { bytes: geometry.bytes, blockBytes: geometry.blockSize, btrfs: null };
      }
      case 'btrfs': {
        const args = ['inspect-internal', 'dump-super', id.realPath];
        const result = await runner.run('btrfs', args, { timeoutMs: probeMs });
        if (result.exitCode !== 0)
          throw toolFailure('btrfs', args, result, `measuring btrfs on ${id.path}`);
        const size = parseBtrfsDumpSuper(result.stdout);
        if (size === null) throw unexpected('btrfs inspect-internal dump-super', result.stdout);
        return {
          bytes: size.bytes,
          blockBytes: size.sectorSize,
          btrfs: { devid: size.devid, devices: size.devices },
        };
      }
      default:
        throw new FsResizeError(
          'FSRESIZE_UNSUPPORTED_FILESYSTEM',
          `cannot measure ${filesystem} on ${id.path}`,
        );
    }
  }

  async function inspectId(
    id: BlockDeviceId,
    mountPath: string | undefined,
  ): Promise<{ inspection: Inspection; mount: MountEntry | null }> {
    // blkid (a process) is the slow step. The mountinfo and sysfs reads (made in place) come
    // first, and the look for other users (below) runs while blkid does.
    const listing = mounts.list();
    const reads = Promise.all([
      devices.sizeBytes(id),
      devices.readOnly(id),
      listing,
      mountPath === undefined ? undefined : mountPathForms(mountPath),
    ]);
    reads.catch(() => undefined); // awaited below
    const ownProbes = new Set<number>();
    const probing = probe(id, ownProbes);
    probing.catch(() => undefined); // awaited below, or not needed (an empty device)
    // Who else has the device open matters only to an offline grow: looked for (a walk of /proc,
    // beside blkid, which it leaves alone) only when mountinfo lists no mount of the device.
    const looking = listing.then((entries) =>
      entries.some((entry) => mountedByNumber(entry, id))
        ? null
        : devices.users(id, { skipPids: ownProbes }),
    );
    looking.catch(() => undefined); // awaited below, or not needed (an empty device)
    const [deviceBytes, deviceReadOnly, all, wantedPaths] = await reads;
    // A device of 0 bytes has nothing to probe (planGrow refuses it as empty): what blkid says is not used.
    const signature = deviceBytes === 0 ? await probing.then(empty, empty) : await probing;
    const users = deviceBytes === 0 ? null : await looking;
    const found = await deviceMounts(id, signature, all);
    const wanted =
      mountPath === undefined || wantedPaths === undefined
        ? undefined
        : { given: mountPath, paths: wantedPaths };
    const { chosen, chosenStacked, visible, hidden, unusable } = chooseMount(
      id.path,
      found,
      wanted,
    );
    const mountPoint = chosen?.mountPoint ?? null;
    const size =
      isSupportedFilesystem(signature.filesystem) && signature.partitionTable === null
        ? await measure(id, signature.filesystem, mountPoint)
        : null;
    const inspection: Inspection = {
      device: id.path,
      devicePath: id.realPath,
      majorMinor: id.majorMinor,
      deviceBytes,
      deviceReadOnly,
      filesystem: signature.filesystem,
      partitionTable: signature.partitionTable,
      filesystemBytes: size?.bytes ?? null,
      blockBytes: size?.blockBytes ?? null,
      mountPoint,
      mountReadOnly: chosen?.readOnly ?? false,
      mountPointStacked: chosenStacked,
      mountPoints: visible,
      hiddenMountPoints: hidden,
      unusableMountPoints: unusable,
      btrfs: size?.btrfs ?? null,
      users,
      ...(size?.extCheckNeeded === undefined ? {} : { extCheckNeeded: size.extCheckNeeded }),
      ...(size?.extErrors === undefined ? {} : { extErrors: size.extErrors }),
      ...(size?.extPageBytes === undefined ? {} : { extPageBytes: size.extPageBytes }),
      ...(size?.ext64bit === undefined ? {} : { ext64bit: size.ext64bit }),
      ...(size?.extBigalloc === undefined ? {} : { extBigalloc: size.extBigalloc }),
    };
    return { inspection, mount: chosen };
  }

  /**
   * The device name still leads to the device voe locked (and inspected): a name re-pointed while
   * voe waited for the lock or ran a check (a node made anew, a link changed) would send the tools
   * to another device, which no lock and no look for users covered.
   */
  async function confirmSameDevice(
    id: BlockDeviceId,
    outcome = 'nothing was changed',
    details: { details?: Record<string, unknown> } = {},
  ): Promise<void> {
    const now = await devices.identify(id.path);
    if (now.majorMinor === id.majorMinor && now.realPath === id.realPath) return;
    throw new FsResizeError(
      'FSRESIZE_DEVICE_CHANGED',
      `${id.path} now leads to ${now.realPath} (${now.majorMinor}), not to the device voe locked and inspected (${id.realPath}, ${id.majorMinor}): the name was given to another device meanwhile; ${outcome} — check which device to grow and retry`,
      details,
    );
  }

  /** What was done when the tool `next` is not run after all: nothing, or only the check before it. */
  function notRunOutcome(next: string, precheck: PrecheckRan | null): string {
    return precheck
      ? `${next} was not run; ${precheck.command.join(' ')} ran first (${fsckExitText(precheck.exitCode)})`
      : `nothing was changed (${next} was not run)`;
  }

  /** Just before a tool writes: the same device, and not smaller than inspected (it may have been shrunk during a long check). */
  async function confirmUnchanged(
    id: BlockDeviceId,
    inspection: Inspection,
    next: string,
    precheck: PrecheckRan | null,
  ): Promise<void> {
    const outcome = notRunOutcome(next, precheck);
    const details = precheck ? { details: { precheck } } : {};
    await confirmSameDevice(id, outcome, details);
    const bytes = await devices.sizeBytes(id);
    if (bytes >= inspection.deviceBytes) return;
    const [was, now] = formatBytePair(inspection.deviceBytes, bytes);
    throw new FsResizeError(
      'FSRESIZE_DEVICE_CHANGED',
      `${id.path} shrank from ${was} to ${now} since voe inspected it; ${outcome} — check the volume's size (was it shrunk, or is it another one?) and retry`,
      details,
    );
  }

  /** The tools act on what the mount point shows: make sure it still shows the filesystem inspected. */
  async function confirmStillVisible(
    id: BlockDeviceId,
    mount: MountEntry | null,
    filesystem: string,
  ): Promise<void> {
    if (mount === null || (await mounts.visibleMountId(mount.mountPoint)) === mount.mountId) return;
    throw new FsResizeError(
      'FSRESIZE_MOUNT_HIDDEN',
      `${filesystem} on ${id.path} is mounted at ${mount.mountPoint} but hidden by another mount there now (it changed while voe was inspecting it); nothing was changed — unmount what is mounted over it and retry`,
    );
  }

  /**
   * Just before a tool starts: the device lock must be able to name it (ReleaseLock.reserveTool),
   * or a voe killed while it runs would leave the device unlocked with the tool still at work.
   */
  function reserveTool(held: ReleaseLock, next: string, precheck: PrecheckRan | null): void {
    try {
      held.reserveTool();
    } catch (error) {
      if (!isFsResizeError(error)) throw error;
      const outcome = precheck
        ? `${precheck.command.join(' ')} ran first (${fsckExitText(precheck.exitCode)}); the filesystem was not grown`
        : 'nothing was changed';
      throw new FsResizeError(
        error.code,
        `${next} was not started, as the device lock could not be made to name it while it runs: ${error.message}; ${outcome}`,
        { cause: error, ...(precheck ? { details: { precheck } } : {}) },
      );
    }
  }

  /**
   * A probe (blkid, xfs_io...) ended by the very stop signal voe received, before any grow or check
   * tool started: a terminal's Ctrl-C reaches voe's whole process group, a service manager's stop
   * its whole cgroup, so the probe dies of it while voe stops at its next safe point. That is the
   * stop (FSRESIZE_INTERRUPTED, nothing changed), not a tool failure; null for any other error.
   */
  async function stoppedWithProbe(
    error: unknown,
    signal: AbortSignal | undefined,
  ): Promise<FsResizeError | null> {
    if (
      !signal ||
      !isFsResizeError(error) ||
      error.code !== 'FSRESIZE_TOOL_FAILED' ||
      !error.tool?.signal
    )
      return null;
    // The probe's end and voe's own signal arrive as two events, in either order: a probe ended by
    // a stop signal is given a moment for voe's to be seen.
    if (!signal.aborted) await abortedWithin(signal, STOP_SIGNAL_GRACE_MS);
    if (!signal.aborted || error.tool.signal !== String(signal.reason)) return null;
    const { tool } = error;
    return new FsResizeError(
      'FSRESIZE_INTERRUPTED',
      `stopped (${String(signal.reason)}) while ${[tool.tool, ...tool.args].join(' ')} ran, which the same signal ended (it reaches voe's whole process group or service); nothing was changed`,
      { cause: error, tool },
    );
  }

  async function growLocked(
    id: BlockDeviceId,
    growOptions: GrowOptions,
    held: ReleaseLock,
    started: { tool: boolean },
  ): Promise<GrowResult> {
    const dryRun = growOptions.dryRun === true;
    const inspected = await inspectId(id, growOptions.mountPath);
    const { mount } = inspected;
    let { inspection } = inspected;
    const options: PlanOptions = {
      ...planOptions,
      ...(growOptions.requiredDeviceBytes === undefined
        ? {}
        : { requiredDeviceBytes: growOptions.requiredDeviceBytes }),
      ...(growOptions.readOnlyMount === undefined
        ? {}
        : { readOnlyMount: growOptions.readOnlyMount }),
      ...(growOptions.readOnlyDevice === undefined
        ? {}
        : { readOnlyDevice: growOptions.readOnlyDevice }),
    };
    let plan = planGrow(inspection, options);
    // A program that opens devices for a moment (udev's probe after a size change, blkid, lsblk)
    // is not a user to refuse for: look again a few times before refusing.
    for (
      let look = 1;
      look < USERS_LOOKS &&
      plan.kind === 'refuse' &&
      plan.error.code === 'FSRESIZE_DEVICE_IN_USE' &&
      inspection.users !== null;
      look += 1
    ) {
      await delay(USERS_LOOK_INTERVAL_MS);
      inspection = { ...inspection, users: await devices.users(id) };
      plan = planGrow(inspection, options);
    }
    const base = {
      device: id.path,
      filesystem: inspection.filesystem,
      mountPoint: inspection.mountPoint,
      deviceBytes: inspection.deviceBytes,
      beforeBytes: inspection.filesystemBytes,
      dryRun,
    };
    if (plan.kind === 'refuse') throw plan.error;
    if (plan.kind === 'noop')
      return {
        ...base,
        action: 'noop',
        reason: plan.reason,
        afterBytes: inspection.filesystemBytes,
        command: null,
        precheck: null,
      };
    // The check and the grow tool change the filesystem: they must run to their end even if voe
    // is stopped or killed, and the device lock names them so no other voe starts meanwhile.
    const critical = {
      onStart: (pid: number) => {
        started.tool = true;
        held.recordTool(pid);
      },
    };
    const { signal } = growOptions;
    /** Runs e2fsck -f -p; 0 = clean, 1 = errors corrected; anything else needs a person. */
    const runCheck = async (
      { tool, args }: { tool: string; args: string[] },
      purpose: string,
    ): Promise<PrecheckRan> => {
      await confirmUnchanged(id, inspection, [tool, ...args].join(' '), null);
      reserveTool(held, [tool, ...args].join(' '), null);
      const check = await runner.run(tool, args, { timeoutMs: growMs, critical });
      if (check.exitCode !== 0 && check.exitCode !== 1)
        throw fsckFailure(tool, args, check, purpose);
      return { command: [tool, ...args], exitCode: check.exitCode };
    };
    if (plan.kind === 'check') {
      const checkCommand = [plan.precheck.tool, ...plan.precheck.args];
      if (dryRun) {
        return {
          ...base,
          action: 'noop',
          reason: `dry run: ${plan.reason}: would check it with: ${checkCommand.join(' ')}`,
          afterBytes: inspection.filesystemBytes,
          command: null,
          precheck: { command: checkCommand, exitCode: null },
        };
      }
      stopIfAsked(signal, `before running ${checkCommand.join(' ')}: nothing was changed`);
      const checked = await runCheck(
        plan.precheck,
        `checking ${inspection.filesystem} on ${id.path}, which records errors`,
      );
      return {
        ...base,
        action: 'noop',
        afterBytes: inspection.filesystemBytes,
        command: null,
        precheck: checked,
        reason: `${plan.reason}: checked it (${checkCommand.join(' ')}, ${fsckExitText(checked.exitCode)}); nothing to grow`,
      };
    }
    const command = [plan.tool, ...plan.args];
    const checkCommand = plan.precheck ? [plan.precheck.tool, ...plan.precheck.args] : null;
    if (dryRun) {
      const steps = [...(checkCommand ? [checkCommand.join(' ')] : []), command.join(' ')];
      return {
        ...base,
        action: 'noop',
        reason: `dry run: would ${plan.reason} with: ${steps.join(' && ')}`,
        afterBytes: inspection.filesystemBytes,
        command,
        precheck: checkCommand ? { command: checkCommand, exitCode: null } : null,
      };
    }
    let precheck: PrecheckRan | null = null;
    stopIfAsked(
      signal,
      `before running ${(checkCommand ?? command).join(' ')}: nothing was changed`,
    );
    if (plan.precheck && checkCommand) {
      precheck = await runCheck(
        plan.precheck,
        `checking ${inspection.filesystem} on ${id.path} before growing it offline`,
      );
      stopIfAsked(
        signal,
        `after ${checkCommand.join(' ')} had finished (${fsckExitText(precheck.exitCode)}), before ${command.join(' ')}: the filesystem was not grown${precheck.exitCode === 1 ? " (the check's fixes are written)" : ''}`,
        { precheck },
      );
    }
    await confirmStillVisible(id, mount, inspection.filesystem as string);
    await confirmUnchanged(id, inspection, command.join(' '), precheck);
    reserveTool(held, command.join(' '), precheck);
    const result = await runner.run(plan.tool, plan.args, { timeoutMs: growMs, critical });
    if (result.exitCode !== 0)
      throw toolFailure(
        plan.tool,
        plan.args,
        result,
        `growing ${inspection.filesystem} on ${id.path}`,
        precheck ?? undefined,
      );
    const before = inspection.filesystemBytes ?? 0;
    // xfs_growfs reads the new size back from the kernel and prints it: no second xfs_io needed.
    const reported =
      plan.tool === 'xfs_growfs'
        ? xfsGrowfsAfterBytes(result.stdout, before, inspection.blockBytes)
        : null;
    const after =
      reported === null
        ? await measure(id, inspection.filesystem as string, inspection.mountPoint)
        : { bytes: reported };
    // Preen mode may have written fixes: say that it ran, and how it ended.
    const checked = precheck
      ? `checked (${precheck.command.join(' ')}, ${fsckExitText(precheck.exitCode)}) and `
      : '';
    const [beforeSize, afterSize] = formatBytePair(before, after.bytes);
    if (after.bytes < before) {
      // resize2fs without a size fits the filesystem to the device: one shrunk while it ran is shrunk with it.
      throw new FsResizeError(
        'FSRESIZE_DEVICE_CHANGED',
        `${checked}${command.join(' ')} left ${inspection.filesystem} on ${id.path} smaller than before (${afterSize} instead of ${beforeSize}): the device was made smaller while it ran — check the volume's size and the filesystem (e2fsck -f) before using it`,
        precheck ? { details: { precheck } } : {},
      );
    }
    if (after.bytes === before) {
      return {
        ...base,
        action: 'noop',
        afterBytes: after.bytes,
        command,
        precheck,
        reason: `${checked}${command.join(' ')} succeeded but ${inspection.filesystem} on ${id.path} stayed at ${formatBytes(after.bytes)}: the remaining ${formatBytes(inspection.deviceBytes - after.bytes)} is too small for the filesystem to use`,
      };
    }
    return {
      ...base,
      action: 'grown',
      afterBytes: after.bytes,
      command,
      precheck,
      reason: `${checked}grew ${inspection.filesystem} on ${id.path} from ${beforeSize} to ${afterSize}${inspection.mountPoint ? ` online (mounted at ${inspection.mountPoint})` : ' offline'}`,
    };
  }

  return {
    async inspect(device, inspectOptions = {}) {
      return (await inspectId(await identify(device), inspectOptions.mountPath)).inspection;
    },
    needsResize(inspection) {
      return needsResize(inspection);
    },
    async grow(device, growOptions = {}) {
      const required = growOptions.requiredDeviceBytes;
      if (required !== undefined && !(Number.isSafeInteger(required) && required >= 0)) {
        throw new FsResizeError(
          'FSRESIZE_INVALID_ARGUMENT',
          `the required device size must be a whole number of bytes, got ${String(required)}`,
        );
      }
      const id = await identify(device);
      if (growOptions.blockMode) {
        return {
          action: 'noop',
          reason: `${device} is a block-mode volume: the workload uses the raw device, there is no filesystem to grow`,
          device,
          filesystem: null,
          mountPoint: null,
          deviceBytes: await devices.sizeBytes(id),
          beforeBytes: null,
          afterBytes: null,
          dryRun: growOptions.dryRun === true,
          command: null,
          precheck: null,
        };
      }
      stopIfAsked(growOptions.signal, `before growing ${device}: nothing was changed`);
      const release = await lock.acquire(id.majorMinor, {
        timeoutMs: lockMs,
        ...(growOptions.signal ? { signal: growOptions.signal } : {}),
        ...(growOptions.onLockWait ? { onWait: growOptions.onLockWait } : {}),
      });
      try {
        // Keep the device open for the whole operation: what blkid and the superblock read
        // brought into the kernel's cache is still there when the grow tool starts.
        const letGo = await devices.hold(id);
        try {
          // The name may have been given to another device while voe waited for the lock.
          await confirmSameDevice(id);
          const started = { tool: false };
          try {
            return await growLocked(id, growOptions, release, started);
          } catch (error) {
            throw (
              (started.tool ? null : await stoppedWithProbe(error, growOptions.signal)) ?? error
            );
          }
        } finally {
          await letGo();
        }
      } finally {
        await release();
      }
    },
  };
}
