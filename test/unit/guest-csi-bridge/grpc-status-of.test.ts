import { describe, it } from 'mocha';
import { assert } from 'chai';
import { status } from '@grpc/grpc-js';
import { CsiError, type CsiErrorCode } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { grpcStatusOf } from '../../../src/guest-csi-bridge/errors/grpc-status-of.js';
import { FsResizeError } from '../../../src/fsresize/model/fsresize-error.js';
import { KubeError } from '../../../src/kube/index.js';

describe('grpcStatusOf', () => {
  const table: Array<[CsiErrorCode, status]> = [
    ['CSI_INVALID_ARGUMENT', status.INVALID_ARGUMENT],
    ['CSI_VOLUME_NOT_FOUND', status.NOT_FOUND],
    ['CSI_NODE_NOT_FOUND', status.NOT_FOUND],
    ['CSI_VOLUME_EXISTS', status.ALREADY_EXISTS],
    ['CSI_CAPACITY_OUT_OF_RANGE', status.OUT_OF_RANGE],
    ['CSI_OPERATION_PENDING', status.ABORTED],
    ['CSI_HOTPLUG_PENDING', status.ABORTED],
    ['CSI_HOST_ATTACHMENT_ELSEWHERE', status.ABORTED],
    ['CSI_HOST_TIMEOUT', status.DEADLINE_EXCEEDED],
    ['CSI_HOST_UNAVAILABLE', status.UNAVAILABLE],
    ['CSI_NOT_MOUNTED', status.FAILED_PRECONDITION],
    ['CSI_SETTING_INVALID', status.INTERNAL],
    ['CSI_HOST_BACKUPS_UNSERVED', status.FAILED_PRECONDITION],
    ['CSI_RESTORE_PENDING', status.ABORTED],
    ['CSI_HOST_RESTORE_FAILED', status.INTERNAL],
  ];
  for (const [code, expected] of table) {
    it(`${code} -> ${status[expected]}`, () => {
      const answer = grpcStatusOf(new CsiError(code, 'what happened'));
      assert.strictEqual(answer.code, expected);
      assert.strictEqual(answer.details, `${code}: what happened`);
    });
  }

  it('host refusals are codes external-resizer (>= v1.12, IsInfeasibleError) counts as infeasible', () => {
    const infeasible = new Set([status.INVALID_ARGUMENT, status.OUT_OF_RANGE, status.NOT_FOUND]);
    for (const code of [
      'CSI_EXPANSION_REFUSED',
      'CSI_PROVIDER_NOT_VALIDATED',
      'CSI_HOST_RESIZE_INFEASIBLE',
    ] as const)
      assert.isTrue(infeasible.has(grpcStatusOf(new CsiError(code, 'x')).code), code);
  });

  it('never FAILED_PRECONDITION for what ControllerExpandVolume answers (external-resizer reads it as "offline only, in use")', () => {
    for (const code of [
      'CSI_EXPANSION_REFUSED',
      'CSI_PROVIDER_NOT_VALIDATED',
      'CSI_HOST_RESIZE_INFEASIBLE',
      'CSI_HOST_PVC_NOT_BOUND',
      'CSI_SETTING_INVALID',
      'CSI_HOST_TIMEOUT',
    ] as const)
      assert.notStrictEqual(
        grpcStatusOf(new CsiError(code, 'x')).code,
        status.FAILED_PRECONDITION,
        code,
      );
  });

  it('fsresize errors: by code, INTERNAL otherwise', () => {
    assert.strictEqual(grpcStatusOf(new FsResizeError('FSRESIZE_BUSY', 'x')).code, status.ABORTED);
    assert.strictEqual(
      grpcStatusOf(new FsResizeError('FSRESIZE_NOT_MOUNTED', 'x')).code,
      status.FAILED_PRECONDITION,
    );
    assert.strictEqual(
      grpcStatusOf(new FsResizeError('FSRESIZE_DEVICE_TOO_SMALL', 'x')).code,
      status.UNAVAILABLE,
    );
    assert.strictEqual(
      grpcStatusOf(new FsResizeError('FSRESIZE_TOOL_FAILED', 'x')).code,
      status.INTERNAL,
    );
  });

  it('kube transport failures are UNAVAILABLE', () => {
    assert.strictEqual(
      grpcStatusOf(new KubeError('KUBE_REQUEST_FAILED', 'x')).code,
      status.UNAVAILABLE,
    );
  });

  it('anything else is INTERNAL with a fixed text (its message could hold anything)', () => {
    const answer = grpcStatusOf(new Error('token=abc123'));
    assert.strictEqual(answer.code, status.INTERNAL);
    assert.notInclude(answer.details, 'abc123');
  });
});
