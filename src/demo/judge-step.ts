import { PVC_EXPAND_PREFIX } from '../admission/index.js';
import { WEBHOOK_ENDPOINTS } from '../webhook/index.js';
import type { DemoExpectation } from './demo-steps.js';

/** The name of voe's PVC resize webhook in its ValidatingWebhookConfiguration (the API server quotes it). */
export const VOE_PVC_RESIZE_WEBHOOK = WEBHOOK_ENDPOINTS.pvcResize.webhookName;

/**
 * How kube-apiserver words a validating webhook's refusal (k8s.io/apiserver, webhook/errors
 * ToStatusErr): this prefix, then the message of the status the webhook answered with.
 */
export function webhookDeniedPrefix(webhookName: string): string {
  return `admission webhook "${webhookName}" denied the request: `;
}

/** What the API server answered a PVC update: admitted, or refused with its Status (code, reason, message). */
export type ApiAnswer =
  { outcome: 'admitted' } | { outcome: 'refused'; code: number; reason?: string; message: string };

/** What the demo's own voe webhook answered the same update (its pvc-resize verdict), when the API server called it. */
export interface VoeAnswer {
  allowed: boolean;
  /** The verdict's decision label, e.g. "gate-missing", "allowed" or "allowed-offline". */
  decision: string;
  /** For a refusal: the status code and message the webhook sent. */
  code?: number;
  message?: string;
}

export interface StepJudgement {
  /** The answer is the one expected: admitted, or refused by the voe webhook for the expected reason. */
  ok: boolean;
  /** For a refusal: 'voe-webhook' when it is the voe webhook's refusal of this update, else 'other'. */
  refusedBy?: 'voe-webhook' | 'other';
  /** When ok is false: what was expected and what came back. */
  mismatch?: string;
}

/**
 * True when the API server's refusal is the voe webhook's refusal of this very update: the
 * webhook refused it with a PVC_EXPAND message, and the API server's answer is exactly that
 * message behind `admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: `, with
 * the same code. A refusal that only quotes or imitates voe's words (another webhook, a
 * ValidatingAdmissionPolicy, RBAC, validation) is not.
 */
export function isVoeRefusal(answer: ApiAnswer, voe: VoeAnswer | undefined): boolean {
  if (answer.outcome !== 'refused' || voe === undefined || voe.allowed || voe.message === undefined)
    return false;
  return (
    voe.message.startsWith(PVC_EXPAND_PREFIX) &&
    answer.message === `${webhookDeniedPrefix(VOE_PVC_RESIZE_WEBHOOK)}${voe.message}` &&
    (voe.code === undefined || voe.code === answer.code)
  );
}

/** Who refused, as far as the API server's message tells. */
export function refuserOf(answer: { code: number; reason?: string; message: string }): string {
  const webhook = /^admission webhook "([^"]*)" denied the request/.exec(answer.message);
  if (webhook) return `admission webhook "${webhook[1]}"`;
  const policy =
    /ValidatingAdmissionPolicy '([^']*)'(?: with binding '([^']*)')? denied request/.exec(
      answer.message,
    );
  if (policy)
    return `ValidatingAdmissionPolicy '${policy[1]}'${policy[2] ? ` (binding '${policy[2]}')` : ''}`;
  const status = `${answer.code}${answer.reason ? ` ${answer.reason}` : ''}`;
  return `the API server (${status}: not an admission webhook; e.g. RBAC, validation or another admission plugin)`;
}

/** What the demo's voe webhook did with an update whose refusal is not its own. */
function voeSaid(voe: VoeAnswer | undefined): string {
  if (voe === undefined) return 'the voe webhook was not called for this update';
  if (voe.allowed) return `the voe webhook admitted it (${voe.decision})`;
  return `the voe webhook refused it (${voe.decision}), but that is not the refusal the API server returned`;
}

function expectedText(expected: DemoExpectation): string {
  return expected.expect === 'admitted'
    ? 'ADMITTED'
    : `REFUSED by the voe webhook (${expected.decision})`;
}

/**
 * Judges one step of `voe demo` (pure): an expected admission matches an admitted update; an
 * expected refusal matches only the voe webhook's refusal of this update (isVoeRefusal) with
 * the expected decision. Every other answer is a mismatch saying what was expected and what
 * came back.
 */
export function judgeStep(
  expected: DemoExpectation,
  answer: ApiAnswer,
  voe: VoeAnswer | undefined,
): StepJudgement {
  const wanted = expectedText(expected);
  if (answer.outcome === 'admitted') {
    if (expected.expect === 'admitted') return { ok: true };
    return {
      ok: false,
      mismatch: `expected ${wanted}; got ADMITTED${voe ? ` (the voe webhook's decision: ${voe.decision})` : ''}`,
    };
  }
  if (isVoeRefusal(answer, voe)) {
    const decision = voe!.decision;
    if (expected.expect === 'refused' && expected.decision === decision)
      return { ok: true, refusedBy: 'voe-webhook' };
    const got =
      expected.expect === 'refused'
        ? `REFUSED by the voe webhook for another reason (${decision})`
        : `REFUSED by the voe webhook (${decision})`;
    return { ok: false, refusedBy: 'voe-webhook', mismatch: `expected ${wanted}; got ${got}` };
  }
  return {
    ok: false,
    refusedBy: 'other',
    mismatch: `expected ${wanted}; got REFUSED (${answer.code}) by ${refuserOf(answer)}, not by the voe webhook; ${voeSaid(voe)}`,
  };
}
