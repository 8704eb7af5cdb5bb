/**
 * The environment variable that does what `voe fsresize grow --ignore-unreadable-processes` does,
 * for `voe fsresize grow` and for the FlexVolume driver (kubelet passes a driver no options: the
 * environment it runs drivers with is its only setting).
 */
export const IGNORE_UNREADABLE_PROCESSES_ENV = 'VOE_IGNORE_UNREADABLE_PROCESSES';

/**
 * FsResizerOptions.unreadableProcesses for a command: 'ignore' when the flag was given (`flag`) or
 * the environment says so (1 or true), else 'refuse'.
 */
export function unreadableProcessesPolicy(
  env: NodeJS.ProcessEnv,
  flag = false,
): 'refuse' | 'ignore' {
  return flag || ['1', 'true'].includes(env[IGNORE_UNREADABLE_PROCESSES_ENV] ?? '')
    ? 'ignore'
    : 'refuse';
}
