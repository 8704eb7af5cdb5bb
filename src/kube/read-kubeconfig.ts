import { accessSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import yaml from 'js-yaml';
import { newClusters, newContexts, newUsers } from '@kubernetes/client-node/dist/config_types.js';
import { LeanKubeConfig, type KubeConfigEntries } from './lean-kube-config.js';

/** Where a pod's ServiceAccount credentials are mounted. */
const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

function exists(file: string): boolean {
  try {
    accessSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * A kubeconfig's text, parsed as client-node's KubeConfig.loadFromString parses it: js-yaml,
 * then its own config_types (model-free) for the clusters, users and contexts. Throws the
 * parser's errors (a YAMLException quotes the text: callers do not pass it on).
 */
export function kubeConfigEntriesOf(text: string): KubeConfigEntries {
  // An empty document throws here, as in client-node.
  const document = yaml.load(text) as Record<string, unknown>;
  return {
    clusters: newClusters(document['clusters']),
    users: newUsers(document['users']),
    contexts: newContexts(document['contexts']),
    currentContext: document['current-context'] as string,
  };
}

/** client-node's makePathsAbsolute: CA, certificate and key files relative to the kubeconfig's folder. */
function pathsFrom(folder: string, entries: KubeConfigEntries): KubeConfigEntries {
  const absolute = (file: string): string => (isAbsolute(file) ? file : join(folder, file));
  for (const cluster of entries.clusters)
    if (cluster.caFile) cluster.caFile = absolute(cluster.caFile);
  for (const user of entries.users) {
    if (user.certFile) user.certFile = absolute(user.certFile);
    if (user.keyFile) user.keyFile = absolute(user.keyFile);
  }
  return entries;
}

/** The kubeconfig file `file` (KubeConfig.loadFromFile). */
export function readKubeConfigFile(file: string): LeanKubeConfig {
  return new LeanKubeConfig(entriesOfFile(file));
}

/** The entries of the file `file`, its relative paths made absolute. */
function entriesOfFile(file: string): KubeConfigEntries {
  return pathsFrom(dirname(file), kubeConfigEntriesOf(readFileSync(file).toString('utf-8')));
}

/**
 * client-node's mergeConfig: the later file's current-context wins when it sets one; a cluster,
 * user or context named twice is an error.
 */
function merge(into: KubeConfigEntries, other: KubeConfigEntries): KubeConfigEntries {
  const add = <T extends { name: string }>(list: T[], entry: T, kind: string): void => {
    if (list.some((known) => known.name === entry.name))
      throw new Error(`Duplicate ${kind}: ${entry.name}`);
    list.push(entry);
  };
  for (const cluster of other.clusters) add(into.clusters, cluster, 'cluster');
  for (const user of other.users) add(into.users, user, 'user');
  for (const context of other.contexts) add(into.contexts, context, 'context');
  return { ...into, currentContext: other.currentContext || into.currentContext };
}

/**
 * The pod's ServiceAccount (client-node's loadFromCluster, client-go's InClusterConfig): the
 * API server from KUBERNETES_SERVICE_HOST and _PORT, the mounted CA, and the mounted token as a
 * token file, read again when older than 60 s (bound tokens are rotated by the kubelet).
 */
export function inClusterEntries(root = ''): KubeConfigEntries {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'];
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  const serverHost = host && isIPv6(host) ? `[${host}]` : host;
  const namespaceFile = `${root}${SERVICE_ACCOUNT}/namespace`;
  const namespace = exists(namespaceFile)
    ? readFileSync(namespaceFile).toString('utf-8')
    : undefined;
  return {
    clusters: [
      {
        name: 'inCluster',
        caFile: `${root}${SERVICE_ACCOUNT}/ca.crt`,
        server: `${scheme}://${serverHost}:${port}`,
        skipTLSVerify: false,
      },
    ],
    users: [
      {
        name: 'inClusterUser',
        authProvider: {
          name: 'tokenFile',
          config: { tokenFile: `${root}${SERVICE_ACCOUNT}/token` },
        },
      },
    ],
    contexts: [
      { cluster: 'inCluster', name: 'inClusterContext', user: 'inClusterUser', namespace },
    ],
    currentContext: 'inClusterContext',
  };
}

/** $HOME when it can be accessed (client-node's findHomeDir off Windows). */
function homeFolder(): string | undefined {
  const home = process.env['HOME'];
  return home && exists(home) ? home : undefined;
}

/**
 * What client-node's KubeConfig.loadFromDefault finds: the files of $KUBECONFIG merged, else
 * ~/.kube/config, else the pod's ServiceAccount; undefined when there is none of them (where
 * client-node falls back to a plain-HTTP localhost:8080). Linux only (no WSL look-up).
 */
export function readDefaultKubeConfig(): LeanKubeConfig | undefined {
  const list = process.env['KUBECONFIG'];
  if (list) {
    const [first, ...rest] = list.split(delimiter).filter((file) => file);
    let entries = entriesOfFile(first ?? '');
    for (const file of rest) entries = merge(entries, entriesOfFile(file));
    return new LeanKubeConfig(entries);
  }
  const home = homeFolder();
  if (home && exists(join(home, '.kube', 'config')))
    return readKubeConfigFile(join(home, '.kube', 'config'));
  if (exists(`${SERVICE_ACCOUNT}/token`)) return new LeanKubeConfig(inClusterEntries());
  return undefined;
}
