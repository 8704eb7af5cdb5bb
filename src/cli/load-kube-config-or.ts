import { loadKubeConfig, type LeanKubeConfig } from '../kube/index.js';

/**
 * loadKubeConfig, or `toError` of its message with the advice to pass --kubeconfig said once (the
 * message of a kubeconfig found nowhere already ends with it), then `, or <alternative>` if given.
 */
export function loadKubeConfigOr(
  file: string | undefined,
  toError: (message: string) => Error,
  alternative?: string,
): LeanKubeConfig {
  try {
    return loadKubeConfig(file);
  } catch (error) {
    const message = (error as Error).message;
    const advice = message.endsWith('pass --kubeconfig')
      ? ''
      : '; pass a readable file with --kubeconfig';
    throw toError(`${message}${advice}${alternative === undefined ? '.' : `, or ${alternative}`}`);
  }
}
