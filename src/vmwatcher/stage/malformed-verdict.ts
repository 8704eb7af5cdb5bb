import { Phase, type PhaseValue, type WaitingForValue } from '../expansion-phase.js';
import { StageReason } from '../stage-reason.js';
import type { Size } from './read-size.js';
import type { Verdict } from './stage-verdict.js';

/** A size the tracker reads that is not a quantity: Stuck until its writer writes one. Pure. */
export function malformedVerdict(
  where: string,
  size: Size,
  writer: WaitingForValue,
  progressPhase: PhaseValue,
): Verdict {
  return {
    phase: Phase.Stuck,
    waitingFor: writer,
    reason: StageReason.MalformedQuantity,
    message: `${where} is ${JSON.stringify(size.text)}, not a quantity, so the tracker cannot tell how far the expansion got; it follows again once ${writer} (or whoever wrote it) writes a size such as 20Gi.`,
    progressPhase,
  };
}
