import { Agent, request } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueServingCertificate,
  type CertificateAuthority,
} from '../../../src/tls/index.js';

export interface ServingFiles {
  dir: string;
  ca: CertificateAuthority;
  certFile: string;
  keyFile: string;
  cleanup(): Promise<void>;
}

/** A temp dir with tls.crt/tls.key for 127.0.0.1 and localhost, signed by a fresh CA. */
export async function writeServingFiles(): Promise<ServingFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-webhook-test-'));
  const ca = await createCertificateAuthority('voe-test-webhook-ca');
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1', 'localhost'] });
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(certFile, serving.certificatePem);
  await writeFile(keyFile, serving.keyPem, { mode: 0o600 });
  return { dir, ca, certFile, keyFile, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): unknown;
}

/** One HTTPS request to 127.0.0.1:port, trusting `caPem`. */
export function httpsRequest(
  port: number,
  caPem: string,
  options: {
    method?: string;
    path: string;
    body?: string | Buffer;
    headers?: Record<string, string>;
    agent?: Agent;
  },
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'POST',
        ca: caPem,
        headers: { 'content-type': 'application/json', ...(options.headers ?? {}) },
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body) as unknown,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A minimal, valid AdmissionReview v1 for a PVC update. */
export function pvcReview(
  uid: string,
  oldSize = '10Gi',
  newSize = '20Gi',
  name = 'data',
): Record<string, unknown> {
  const pvc = (size: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default', uid: 'pvc-uid' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      storageClassName: 'longhorn',
      volumeMode: 'Filesystem',
      volumeName: 'pvc-1',
    },
    status: { phase: 'Bound', capacity: { storage: oldSize } },
  });
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
      resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      requestKind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
      name,
      namespace: 'default',
      operation: 'UPDATE',
      userInfo: { username: 'alice', groups: ['system:authenticated'] },
      object: pvc(newSize),
      oldObject: pvc(oldSize),
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'UpdateOptions' },
    },
  };
}
