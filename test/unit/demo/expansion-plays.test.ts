import { describe, it } from 'mocha';
import { assert } from 'chai';
import { playsFor } from '../../../src/demo/expansion-plays.js';

const path = (plays: ReturnType<typeof playsFor>) =>
  plays.map((play) => `${play.actor}: ${play.expect.phase}/${play.expect.reason ?? '-'}`);

describe('the demo plays of an admitted resize', () => {
  it('a running VM: each peer in turn, ending at HypervisorResizing with no guest probe', () => {
    assert.deepStrictEqual(path(playsFor({ running: true })), [
      'voe webhook: ControllerResizing/WaitingForResizer',
      'external-resizer: ControllerResizing/ControllerResizeInProgress',
      'external-resizer: NodeResizePending/NodeResizePending',
      'kubelet: NodeResizing/NodeResizeInProgress',
      'kubelet: VMUpdating/WaitingForVmi',
      'virt-controller: HypervisorResizing/NoGuestProbe',
    ]);
    // Only the admission has no write of its own.
    assert.deepStrictEqual(
      playsFor({ running: true }).map((play) => play.act !== undefined),
      [false, true, true, true, true, true],
    );
  });

  it('a stopped VM: the volume grows, then it waits for the next start', () => {
    assert.deepStrictEqual(path(playsFor({ running: false })), [
      'voe webhook: ControllerResizing/WaitingForResizer',
      'external-resizer: ControllerResizing/ControllerResizeInProgress',
      'external-resizer: Stuck/VMStopped',
    ]);
  });

  it('a resize a later one replaced: Superseded, with no write', () => {
    const plays = playsFor({ running: true, supersededBy: '30Gi' });
    assert.deepStrictEqual(path(plays), ['user: Superseded/NewerRequest']);
    assert.isUndefined(plays[0]?.act);
    assert.include(plays[0]?.action, '30Gi');
  });
});
