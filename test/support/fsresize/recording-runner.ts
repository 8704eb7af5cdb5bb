import type { CommandRunner } from '../../../src/fsresize/index.js';

/** The real runner, with a log of every command line it ran (to count grow tool calls). */
export function recordingRunner(inner: CommandRunner): CommandRunner & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    run(command, args, options) {
      calls.push([command, ...args]);
      return inner.run(command, args, options);
    },
  };
}

export const GROW_TOOLS = new Set(['resize2fs', 'xfs_growfs']);

/** How many times a grow tool ran (resize2fs, xfs_growfs, btrfs filesystem resize). */
export function growCalls(calls: string[][]): number {
  return calls.filter(
    (c) =>
      GROW_TOOLS.has(c[0] ?? '') ||
      (c[0] === 'btrfs' && c[1] === 'filesystem' && c[2] === 'resize'),
  ).length;
}
