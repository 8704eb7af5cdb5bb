import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeGoExit, etcdFallbackAllowed } from '../../../src/controlplane/go-exit.js';

test('how go ended, in words', () => {
  assert.equal(describeGoExit({ code: 1, signal: null, stderr: '' }), 'failed (exit 1)');
  assert.equal(
    describeGoExit({ code: null, signal: 'SIGKILL', stderr: '' }),
    'was killed by SIGKILL',
  );
});

test("only go's own failure to build etcd falls back to Debian's etcd", () => {
  assert.equal(
    etcdFallbackAllowed({
      code: 1,
      signal: null,
      stderr:
        'go: go.etcd.io/etcd/server/v3@v3.5.21: Get "https://proxy.golang.org/...": dial tcp: lookup proxy.golang.org: no such host',
    }),
    true,
  );
  assert.equal(etcdFallbackAllowed({ code: null, signal: 'SIGINT', stderr: '' }), false);
  assert.equal(etcdFallbackAllowed({ code: null, signal: 'SIGKILL', stderr: '' }), false);
  for (const errno of ['no space left on device', 'disk quota exceeded', 'read-only file system']) {
    assert.equal(
      etcdFallbackAllowed({
        code: 1,
        signal: null,
        stderr: `go build go.etcd.io/etcd/server/v3: copying /tmp/go-build1/b001/exe/a.out: write /c/etcd.tmp-1: ${errno}`,
      }),
      false,
      errno,
    );
  }
});
