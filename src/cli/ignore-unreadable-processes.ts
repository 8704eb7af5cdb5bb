/**
 * The environment variable that does what `voe fsresize grow --ignore-unreadable-processes` does,
 * for `voe fsresize grow` and for the FlexVolume driver (kubelet passes a driver no options: the
 * environment it runs drivers with is its only setting).
 */
export const IGNORE_UNREADABLE_PROCESSES_ENV = 'VOE_IGNORE_UNREADABLE_PROCESSES';

/** True when the environment says to ignore processes whose open files voe may not read: 1 or true. */
export function ignoreUnreadableProcesses(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'true'].includes(env[IGNORE_UNREADABLE_PROCESSES_ENV] ?? '');
}
