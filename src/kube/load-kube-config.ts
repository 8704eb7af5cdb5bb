import { KubeError } from './kube-error.js';
import type { LeanKubeConfig } from './lean-kube-config.js';
import { readDefaultKubeConfig, readKubeConfigFile } from './read-kubeconfig.js';

/**
 * Why a kubeconfig could not be loaded, without any of its content: kubeconfigs hold client keys
 * and tokens, and YAML parse errors quote the lines around the problem.
 */
function safeReason(error: unknown): string {
  const e = error as {
    name?: string;
    code?: string;
    reason?: string;
    mark?: { line?: number; column?: number };
  };
  if (e?.name === 'YAMLException') {
    const where =
      e.mark?.line === undefined
        ? ''
        : ` at line ${e.mark.line + 1}, column ${(e.mark.column ?? 0) + 1}`;
    return `is not valid YAML: ${e.reason ?? 'parse error'}${where}`;
  }
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return `cannot be read (${e.code})`;
  return `is not a usable kubeconfig (${e?.name ?? 'error'})`;
}

/**
 * The kubeconfig in `file`, else what client-node's `KubeConfig.loadFromDefault` finds
 * ($KUBECONFIG, ~/.kube/config, then in-cluster), read without client-node's generated models
 * (read-kubeconfig.ts). Throws KubeError KUBE_KUBECONFIG_INVALID whose message names the file and
 * the problem but never quotes the file.
 */
export function loadKubeConfig(file?: string): LeanKubeConfig {
  const source =
    file ??
    (process.env['KUBECONFIG']
      ? `from $KUBECONFIG (${process.env['KUBECONFIG']})`
      : '~/.kube/config');
  let kubeConfig: LeanKubeConfig | undefined;
  try {
    kubeConfig = file ? readKubeConfigFile(file) : readDefaultKubeConfig();
  } catch (error) {
    // No `cause`: the parser's error quotes the file, and a cause can end up in a log.
    throw new KubeError('KUBE_KUBECONFIG_INVALID', `the kubeconfig ${source} ${safeReason(error)}`);
  }
  // Found nowhere (client-node would fall back to a plain-HTTP localhost:8080).
  if (kubeConfig === undefined) {
    throw new KubeError(
      'KUBE_KUBECONFIG_INVALID',
      'no kubeconfig was found: $KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod with a service account; pass --kubeconfig',
    );
  }
  if (kubeConfig.getCurrentCluster() === null) {
    const context = kubeConfig.getCurrentContext();
    const why = context
      ? `its current-context "${context.slice(0, 80)}" names no context with a cluster`
      : 'it sets no current-context';
    throw new KubeError(
      'KUBE_KUBECONFIG_INVALID',
      `the kubeconfig ${source} has no cluster to talk to: ${why}; choose one (kubectl config use-context NAME) or pass another --kubeconfig`,
    );
  }
  return kubeConfig;
}
