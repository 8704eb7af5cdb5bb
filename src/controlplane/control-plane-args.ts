import { join } from 'node:path';

/** etcd's client URL on loopback port `clientPort`. */
export function etcdUrlOf(clientPort: number): string {
  return `http://127.0.0.1:${clientPort}`;
}

/** kube-apiserver's URL on loopback port `apiPort`. */
export function apiServerUrlOf(apiPort: number): string {
  return `https://127.0.0.1:${apiPort}`;
}

/** envtest's etcd flags: one member on loopback ports, its data in DIR/etcd, without fsync. Pure. */
export function etcdArgs(dir: string, clientPort: number, peerPort: number): string[] {
  const etcdUrl = etcdUrlOf(clientPort);
  return [
    `--name=voe-etcd`,
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-cluster=voe-etcd=http://127.0.0.1:${peerPort}`,
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    '--unsafe-no-fsync=true',
  ];
}

/**
 * envtest's kube-apiserver flags: loopback port `apiPort`, the certificates and service-account
 * keys of `pkiDir` (writePki), client-certificate authentication and RBAC, etcd at `etcdUrl`;
 * then `extra`. Pure.
 */
export function apiServerArgs(
  pkiDir: string,
  apiPort: number,
  etcdUrl: string,
  extra: readonly string[] = [],
): string[] {
  return [
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    '--disable-admission-plugins=ServiceAccount',
    `--cert-dir=${pkiDir}`,
    `--tls-cert-file=${join(pkiDir, 'apiserver.crt')}`,
    `--tls-private-key-file=${join(pkiDir, 'apiserver.key')}`,
    '--authorization-mode=RBAC',
    `--secure-port=${apiPort}`,
    '--bind-address=127.0.0.1',
    `--service-account-issuer=${apiServerUrlOf(apiPort)}/`,
    `--service-account-key-file=${join(pkiDir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(pkiDir, 'sa.key')}`,
    `--etcd-servers=${etcdUrl}`,
    `--client-ca-file=${join(pkiDir, 'client-ca.crt')}`,
    '--enable-priority-and-fairness=false',
    ...extra,
  ];
}
