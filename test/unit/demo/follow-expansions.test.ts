import { describe, it } from 'mocha';
import { assert } from 'chai';
import { passedAt } from '../../../src/demo/follow-expansions.js';
import { playsFor } from '../../../src/demo/expansion-plays.js';
import type { VolumeExpansion } from '../../../src/vmwatcher/index.js';

const plays = playsFor({ running: true, guest: true, growth: true });
const growing = plays.at(-2)!;
const completed = plays.at(-1)!;

function expansion(status: VolumeExpansion['status']): VolumeExpansion {
  return { metadata: { name: 'data-2gi', namespace: 'default' }, status } as VolumeExpansion;
}

const AT = '2026-12-07T09:40:01Z';

describe('followPlays: a phase the tracker passes between two reads', () => {
  const CASES: Array<{
    name: string;
    play: typeof growing;
    seen: VolumeExpansion;
    passed?: string;
  }> = [
    {
      name: 'GuestFilesystemGrowing left for Completed: its phaseTimestamps entry',
      play: growing,
      seen: expansion({
        phase: 'Completed',
        reason: 'GuestFilesystemGrown',
        phaseTimestamps: { GuestFilesystemGrowing: AT, Completed: AT },
      }),
      passed: AT,
    },
    {
      name: 'GuestFilesystemGrowing shown as it is: not a passed phase',
      play: growing,
      seen: expansion({
        phase: 'GuestFilesystemGrowing',
        reason: 'GrowingGuestFilesystem',
        phaseTimestamps: { GuestFilesystemGrowing: AT },
      }),
    },
    {
      name: 'not entered yet',
      play: growing,
      seen: expansion({
        phase: 'HypervisorResizing',
        reason: 'WaitingForHypervisor',
        phaseTimestamps: { HypervisorResizing: AT },
      }),
    },
    {
      name: 'a play not marked passing must be read as it is',
      play: completed,
      seen: expansion({
        phase: 'Superseded',
        reason: 'NewerRequest',
        phaseTimestamps: { Completed: AT, Superseded: AT },
      }),
    },
  ];
  for (const each of CASES)
    it(each.name, () => assert.strictEqual(passedAt(each.seen, each.play), each.passed));
});
