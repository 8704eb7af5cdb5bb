import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { V1Status } from '@kubernetes/client-node';
import { execExitCode } from '../../../../src/vmwatcher/probe/exec-exit-code.js';

/** Statuses as the kubelet's streaming server writes them on the error channel (ServeExec, v4 protocol). */
const CASES: Array<{ name: string; status: V1Status; expected: number | undefined }> = [
  { name: 'success', status: { metadata: {}, status: 'Success' }, expected: undefined },
  {
    name: 'a non-zero exit',
    status: {
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: exit status 1',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '1' }] },
    },
    expected: 1,
  },
  {
    name: 'exit code 127',
    status: {
      status: 'Failure',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '127' }] },
    },
    expected: 127,
  },
  {
    name: 'a command that could not start (InternalError)',
    status: {
      status: 'Failure',
      reason: 'InternalError',
      code: 500,
      message: 'Internal error occurred: error executing command in container',
    },
    expected: undefined,
  },
  {
    name: 'NonZeroExitCode without an ExitCode cause',
    status: { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [] } },
    expected: undefined,
  },
  {
    name: 'an ExitCode cause that is not a number',
    status: {
      status: 'Failure',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: 'one' }] },
    },
    expected: undefined,
  },
];

describe('execExitCode', () => {
  for (const { name, status, expected } of CASES)
    it(name, () => assert.strictEqual(execExitCode(status), expected));
});
