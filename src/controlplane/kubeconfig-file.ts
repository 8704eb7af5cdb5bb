import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { writePrivateFile } from '../tls/index.js';

export interface KubeconfigSpec {
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  user: string;
  clusterName?: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Writes a kubeconfig with inline CA, client certificate and key (mode 0600) and returns it loaded. */
export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<KubeConfig> {
  const cluster = spec.clusterName ?? 'voe-local';
  const context = `${spec.user}@${cluster}`;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster: { server: spec.server, 'certificate-authority-data': b64(spec.caPem) },
      },
    ],
    users: [
      {
        name: spec.user,
        user: { 'client-certificate-data': b64(spec.certPem), 'client-key-data': b64(spec.keyPem) },
      },
    ],
    contexts: [{ name: context, context: { cluster, user: spec.user, namespace: 'default' } }],
    'current-context': context,
  };
  const text = stringify(doc);
  await writePrivateFile(path, text);
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}
