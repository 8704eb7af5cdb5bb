import type { Command } from 'commander';
import { failure, handleFlexVolumeCall } from '../../flexvolume/index.js';
import { deferStopSignals } from '../defer-stop-signals.js';
import { exitOnceAnswered } from '../exit-once-answered.js';
import {
  IGNORE_UNREADABLE_PROCESSES_ENV,
  unreadableProcessesPolicy,
} from '../ignore-unreadable-processes.js';
import {
  createDeviceLock,
  createExecFileRunner,
  createFsResizer,
  createMountinfoTable,
  DEFAULT_LOCK_DIRECTORY,
} from '../../fsresize/index.js';

/**
 * `voe flexvolume <op> [args...]`: the FlexVolume driver. kubelet reads stdout and stderr
 * together as one JSON document, so this command writes exactly one JSON line to stdout,
 * nothing to stderr, and never lets an error escape — not even on SIGTERM, SIGINT or SIGHUP.
 */
export function register(program: Command): void {
  program
    .command('flexvolume')
    .description(
      'The expansion calls of the FlexVolume protocol: init, expandvolume, expandfs (through the fsresize core); other operations ' +
        '(and --help) answer {"status":"Not supported"}. A storage vendor\'s FlexVolume driver hands its expandfs calls to ' +
        '`voe flexvolume "$@"` on the worker nodes; expandvolume only confirms the new size (for storage that grows by itself), ' +
        'so a vendor whose expandvolume grows the volume keeps its own (docs/fsresize.md "Install"). ' +
        `With ${IGNORE_UNREADABLE_PROCESSES_ENV}=1 in its environment an offline ext grow goes ahead although some processes' open files cannot be read (see voe fsresize grow --help).`,
    )
    .argument('[op]', 'the operation kubelet calls: init | expandvolume | expandfs | ...')
    .argument('[args...]', "the operation's arguments, in kubelet's order")
    .helpOption(false)
    .allowUnknownOption()
    .passThroughOptions()
    .action(async (op: string | undefined, args: string[]) => {
      exitOnceAnswered();
      const mounts = createMountinfoTable();
      const resizer = createFsResizer({
        runner: createExecFileRunner(),
        mounts,
        lock: createDeviceLock({ directory: DEFAULT_LOCK_DIRECTORY }),
        unreadableProcesses: unreadableProcessesPolicy(process.env),
      });
      // A stop signal never ends voe in the middle of a grow (and is never reported on stdout or
      // stderr, which kubelet reads as one JSON document): the call stops at the next safe point
      // and answers a Failure after the running tool has finished and the lock is released.
      const stop = deferStopSignals();
      try {
        const answer =
          op === undefined
            ? failure(
                'FLEXVOLUME_INVALID_CALL',
                'no operation given; kubelet calls init, expandvolume or expandfs',
              )
            : await handleFlexVolumeCall([op, ...args], { resizer, mounts, signal: stop.signal });
        process.stdout.write(`${JSON.stringify(answer.response)}\n`);
        process.exitCode = answer.exitCode;
      } finally {
        stop.dispose();
      }
    });
}
