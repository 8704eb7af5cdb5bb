import { it } from 'mocha';
import { assert } from 'chai';
import { describeGoExit, etcdFallbackAllowed } from '../../../src/controlplane/go-exit.js';

it('how go ended, in words', () => {
  assert.strictEqual(describeGoExit({ code: 1, signal: null, stderr: '' }), 'failed (exit 1)');
  assert.strictEqual(
    describeGoExit({ code: null, signal: 'SIGKILL', stderr: '' }),
    'was killed by SIGKILL',
  );
});

it("only go's own failure to build etcd falls back to Debian's etcd", () => {
  assert.isTrue(
    etcdFallbackAllowed({
      code: 1,
      signal: null,
      stderr:
        'go: go.etcd.io/etcd/server/v3@v3.5.21: Get "https://proxy.golang.org/...": dial tcp: lookup proxy.golang.org: no such host',
    }),
  );
  assert.isFalse(etcdFallbackAllowed({ code: null, signal: 'SIGINT', stderr: '' }));
  assert.isFalse(etcdFallbackAllowed({ code: null, signal: 'SIGKILL', stderr: '' }));
  for (const errno of ['no space left on device', 'disk quota exceeded', 'read-only file system']) {
    assert.isFalse(
      etcdFallbackAllowed({
        code: 1,
        signal: null,
        stderr: `go build go.etcd.io/etcd/server/v3: copying /tmp/go-build1/b001/exe/a.out: write /c/etcd.tmp-1: ${errno}`,
      }),
      errno,
    );
  }
});
