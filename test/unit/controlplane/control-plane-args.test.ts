import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  apiServerArgs,
  apiServerUrlOf,
  etcdArgs,
  etcdUrlOf,
} from '../../../src/controlplane/control-plane-args.js';

describe('control plane flags (envtest, pure)', () => {
  it('etcd: one member on the loopback ports, its data in DIR/etcd, without fsync', () => {
    assert.deepStrictEqual(etcdArgs('/tmp/cp', 2379, 2380), [
      '--name=voe-etcd',
      '--data-dir=/tmp/cp/etcd',
      '--listen-peer-urls=http://127.0.0.1:2380',
      '--initial-advertise-peer-urls=http://127.0.0.1:2380',
      '--initial-cluster=voe-etcd=http://127.0.0.1:2380',
      '--listen-client-urls=http://127.0.0.1:2379',
      '--advertise-client-urls=http://127.0.0.1:2379',
      '--unsafe-no-fsync=true',
    ]);
  });

  it('kube-apiserver: the PKI of DIR/pki, RBAC, its port and etcd, then the extra flags last', () => {
    const args = apiServerArgs('/tmp/cp/pki', 6443, etcdUrlOf(2379), ['--v=2']);
    for (const flag of [
      '--tls-cert-file=/tmp/cp/pki/apiserver.crt',
      '--tls-private-key-file=/tmp/cp/pki/apiserver.key',
      '--client-ca-file=/tmp/cp/pki/client-ca.crt',
      '--service-account-key-file=/tmp/cp/pki/sa.pub',
      '--service-account-signing-key-file=/tmp/cp/pki/sa.key',
      '--authorization-mode=RBAC',
      '--secure-port=6443',
      '--bind-address=127.0.0.1',
      '--service-account-issuer=https://127.0.0.1:6443/',
      '--etcd-servers=http://127.0.0.1:2379',
    ])
      assert.include(args, flag);
    assert.strictEqual(args.at(-1), '--v=2');
    assert.deepStrictEqual(apiServerArgs('/tmp/cp/pki', 6443, etcdUrlOf(2379)), args.slice(0, -1));
  });

  it('the URLs of etcd and kube-apiserver on loopback', () => {
    assert.strictEqual(etcdUrlOf(2379), 'http://127.0.0.1:2379');
    assert.strictEqual(apiServerUrlOf(6443), 'https://127.0.0.1:6443');
  });
});
