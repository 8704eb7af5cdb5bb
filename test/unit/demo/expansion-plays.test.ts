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

  it('a real domain: virt-handler grows the disk, the guest sees it (Completed)', () => {
    assert.deepStrictEqual(path(playsFor({ running: true, guest: true })).slice(-2), [
      'virt-controller: HypervisorResizing/WaitingForHypervisor',
      'virt-handler: Completed/GuestSeesNewSize',
    ]);
  });

  it('a real domain whose VM opted in to guest growth: the tracker grows the filesystem, no peer acts', () => {
    const plays = playsFor({ running: true, guest: true, growth: true });
    assert.deepStrictEqual(path(plays).slice(-3), [
      'virt-controller: HypervisorResizing/WaitingForHypervisor',
      'virt-handler: GuestFilesystemGrowing/GrowingGuestFilesystem',
      'voe tracker: Completed/GuestFilesystemGrown',
    ]);
    assert.isDefined(plays.at(-2)?.act);
    assert.isUndefined(plays.at(-1)?.act);
    // GuestFilesystemGrowing may end before a read sees it: phaseTimestamps then shows it.
    assert.deepStrictEqual(
      plays.map((play) => play.passing === true),
      plays.map((_, index) => index === plays.length - 2),
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
