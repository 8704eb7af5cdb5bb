import { it } from 'mocha';
import { assert } from 'chai';
import { lastErrorLine } from '../../../src/cli/last-error-line.js';
import { errorLine } from '../../../src/cli/error-line.js';
import { ControlPlaneError } from '../../../src/controlplane/index.js';

it('lastErrorLine finds the last coded line errorLine() wrote in a log, not progress lines', () => {
  const refused = new ControlPlaneError(
    'CONTROLPLANE_ALREADY_RUNNING',
    "a control plane already runs (or is starting) for /tmp/d (pid 42); use 'voe cluster stop --dir /tmp/d' first",
  );
  const log = [
    'voe: control plane v1.33.13 ready at https://127.0.0.1:1; kubeconfig /tmp/d/kubeconfig\n',
    errorLine(
      new ControlPlaneError(
        'CONTROLPLANE_START_FAILED',
        'cannot create the lock file in /tmp/d (EACCES)',
      ),
    ),
    "voe: using Debian's etcd-server (/usr/bin/etcd) because the etcd build failed\n",
    errorLine(refused),
    'voe: a port chosen for the control plane was taken by another process before it could bind it; retrying on new ports (1 of 3)\n',
  ].join('');
  assert.deepStrictEqual(lastErrorLine(log), {
    code: 'CONTROLPLANE_ALREADY_RUNNING',
    message: refused.message,
  });
  assert.deepStrictEqual(
    lastErrorLine(
      errorLine(
        new ControlPlaneError(
          'CONTROLPLANE_PROCESS_EXITED',
          'etcd exited (code 1, signal null); last log lines (/tmp/d/etcd.log):\nline one\nline two',
        ),
      ),
    ),
    {
      code: 'CONTROLPLANE_PROCESS_EXITED',
      message: 'etcd exited (code 1, signal null); last log lines (/tmp/d/etcd.log):',
    },
    'the first line of a long message',
  );
  assert.isUndefined(lastErrorLine(''));
  assert.isUndefined(
    lastErrorLine('voe: Error: ENOTDIR: not a directory\n    at foo (file.js:1:1)\n'),
    'an uncoded error has no code to report',
  );
});
