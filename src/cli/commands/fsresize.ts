import { Command, InvalidArgumentError, Option } from 'commander';
import { deferStopSignals } from '../defer-stop-signals.js';
import { errorLine } from '../error-line.js';
import { exitOnceAnswered } from '../exit-once-answered.js';
import {
  IGNORE_UNREADABLE_PROCESSES_ENV,
  unreadableProcessesPolicy,
} from '../ignore-unreadable-processes.js';
import {
  asVoeError,
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  DEFAULT_LOCK_DIRECTORY,
  DEFAULT_LOCK_WAIT_MS,
  formatBytes,
  fsckExitText,
  MAX_TIMEOUT_MS,
  type FsResizer,
  type GrowResult,
} from '../../fsresize/index.js';

interface GrowCommandOptions {
  device: string;
  mount?: string;
  dryRun?: boolean;
  json?: boolean;
  lockDir: string;
  ignoreUnreadableProcesses?: boolean;
  timeout: number;
}

const MAX_TIMEOUT_S = Math.floor(MAX_TIMEOUT_MS / 1000);

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > MAX_TIMEOUT_S) {
    throw new InvalidArgumentError(
      `must be a number of seconds from 1 to ${MAX_TIMEOUT_S} (about 24 days)`,
    );
  }
  return n;
}

function sizeLine(label: string, bytes: number | null): string {
  return `  ${label.padEnd(8)}${bytes === null ? '-' : `${formatBytes(bytes)} (${bytes} bytes)`}`;
}

function humanReport(result: GrowResult): string {
  const where = result.mountPoint ? ` mounted at ${result.mountPoint}` : '';
  return (
    [
      `${result.filesystem ?? 'no filesystem'} on ${result.device}${where}: ${result.dryRun ? 'dry run, ' : ''}${result.action}`,
      sizeLine('device', result.deviceBytes),
      sizeLine('before', result.beforeBytes),
      sizeLine('after', result.afterBytes),
      ...(result.precheck
        ? [
            `  check   ${result.precheck.command.join(' ')} (${result.precheck.exitCode === null ? 'would run first' : fsckExitText(result.precheck.exitCode)})`,
          ]
        : []),
      ...(result.command ? [`  command ${result.command.join(' ')}`] : []),
      `  reason  ${result.reason}`,
    ].join('\n') + '\n'
  );
}

/** `voe fsresize grow`: the shared filesystem-resize core for operators. */
export function register(program: Command): void {
  const fsresize = program
    .command('fsresize')
    .description(
      'Grow the filesystem on a node block device to fill the device (ext2/3/4, xfs, btrfs)',
    );
  fsresize
    .command('grow')
    .description(
      'Grow the filesystem on --device to fill the device: resize2fs <device> for ext2/3/4 (mounted or not; when unmounted and resize2fs would demand a check, e2fsck -f -p <device> first; ' +
        "it grows to whole pages of the system's page size, so a filesystem already at the last page boundary is left alone), " +
        'xfs_growfs -d <mountpoint> for xfs and btrfs filesystem resize max <mountpoint> for btrfs (<devid>:max for a device of a multi-device btrfs; both must be mounted). ' +
        "Unformatted and read-only devices are left alone with the reason; partition tables, other filesystems, an unmounted ext filesystem that another process has open (e.g. a VM's disk) " +
        'an ext filesystem without the 64bit feature that would need more than 2^32-1 blocks and an unmounted bigalloc ext4 (grow it mounted) are refused. ' +
        'On SIGTERM, SIGINT or SIGHUP voe never stops a running grow or check tool: it waits for it, stops before the next step, and exits 128 + the signal number.',
    )
    .requiredOption('--device <path>', 'the block device holding the filesystem, e.g. /dev/sdb')
    .option(
      '--mount <dir>',
      'where the filesystem is mounted (found in /proc/self/mountinfo when omitted)',
    )
    .option('--dry-run', 'inspect and say what would be done, change nothing')
    .option('--json', 'print the result (or the error) as JSON on stdout')
    .option(
      '--ignore-unreadable-processes',
      'grow an unmounted ext filesystem offline even when the kernel would not show voe which files some processes have open ' +
        "(voe lacks CAP_SYS_PTRACE, or they have capabilities voe lacks), or when voe runs in a PID namespace of its own and cannot see the node's other processes " +
        `(refused by default, naming them): only when you know they do not use the device; also ${IGNORE_UNREADABLE_PROCESSES_ENV}=1`,
    )
    .addOption(
      new Option(
        '--lock-dir <dir>',
        'directory for the per-device lock files shared by every voe process on the node (made mode 0700; refused if others may write in it)',
      ).default(DEFAULT_LOCK_DIRECTORY),
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        'how long to wait for the grow tool (and the e2fsck pre-check, each); one still running then is left to finish (never stopped midway) and keeps the device lock',
      )
        .default(1800)
        .argParser(seconds),
    )
    // Usage errors (printed by the parser on stderr) exit 2 like every other error.
    .action(growCommand);
}

/**
 * `voe fsresize grow`: grows with the shared core, printing the result (or the error: exit 2). A
 * stop signal does not end voe in the middle of a grow: it stops at the next safe point, after
 * the running tool, releases the lock, then exits 128 + the signal's number.
 */
async function growCommand(options: GrowCommandOptions): Promise<void> {
  exitOnceAnswered();
  const resizer = growResizer(options);
  const stop = deferStopSignals((name, first) =>
    process.stderr.write(
      first
        ? `voe: ${name} received: stopping at the next safe point; a running grow or check tool is never stopped midway (it could damage the filesystem), voe waits for it to finish\n`
        : `voe: ${name} received: still waiting for the running step to finish\n`,
    ),
  );
  try {
    const result = await resizer.grow(options.device, {
      ...(options.mount === undefined ? {} : { mountPath: options.mount }),
      dryRun: options.dryRun === true,
      signal: stop.signal,
      onLockWait: (pid) =>
        process.stderr.write(
          `voe: waiting for another resize of ${options.device} to finish (its lock is held by pid ${pid}); ` +
            `up to ${Math.round(DEFAULT_LOCK_WAIT_MS / 60_000)} minutes, Ctrl-C stops waiting and changes nothing\n`,
        ),
    });
    process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : humanReport(result));
  } catch (thrown) {
    printGrowError(thrown, options.json === true);
    process.exitCode = 2;
  } finally {
    stop.dispose();
    if (stop.received() !== null) {
      process.stderr.write(
        `voe: exiting after ${stop.received()} (exit code ${stop.exitCode()})\n`,
      );
      process.exitCode = stop.exitCode() ?? 1;
    }
  }
}

/** The shared core wired to the system: execFile, the per-device lock files, the options' policy and timeout. */
function growResizer(options: GrowCommandOptions): FsResizer {
  return createFsResizer({
    runner: createExecFileRunner(),
    lock: createDeviceLock({ directory: options.lockDir }),
    unreadableProcesses: unreadableProcessesPolicy(
      process.env,
      options.ignoreUnreadableProcesses === true,
    ),
    timeouts: { growMs: Math.round(options.timeout * 1000) },
  });
}

/**
 * Every error has a code (FSRESIZE_UNEXPECTED_ERROR for one voe did not expect): "voe: <CODE>:
 * <message>" on stderr, or with --json {"error": {code, message, details}} on stdout; printed
 * before the closing line of a stop signal, which comes last.
 */
function printGrowError(thrown: unknown, json: boolean): void {
  const error = asVoeError(thrown);
  if (json)
    process.stdout.write(
      `${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } })}\n`,
    );
  else process.stderr.write(errorLine(error));
}
