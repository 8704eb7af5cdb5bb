import type { AdmissionRequest, AdmissionVerdict, Validator } from '../admission/index.js';
import { WEBHOOK_ENDPOINTS } from '../webhook/index.js';
import type { VoeAnswer } from './judge-step.js';

/**
 * The pvc-resize verdicts of the demo's own voe webhook, in the order it gave them, so each step
 * can tell whether a refusal the API server returned is the voe webhook's (and for which reason)
 * or someone else's. The webhook answers before the API server does, so a step's verdict is
 * recorded by the time its update returns.
 */
export class VoeAnswers {
  private readonly answers: Array<VoeAnswer & { pvc: string }> = [];

  /** `validators`, with the pvc-resize one recording each verdict here before it is sent. */
  record(validators: Validator[]): Validator[] {
    return validators.map((validator) =>
      validator.path !== WEBHOOK_ENDPOINTS.pvcResize.path
        ? validator
        : {
            name: validator.name,
            path: validator.path,
            validate: (request: AdmissionRequest) => {
              const verdict = validator.validate(request);
              const keep = (v: AdmissionVerdict): AdmissionVerdict => {
                this.answers.push({
                  pvc: `${request.namespace ?? ''}/${request.name ?? ''}`,
                  allowed: v.allowed,
                  decision: v.decision,
                  ...(v.allowed
                    ? {}
                    : {
                        ...(v.code === undefined ? {} : { code: v.code }),
                        ...(v.message === undefined ? {} : { message: v.message }),
                      }),
                });
                return v;
              };
              return verdict instanceof Promise ? verdict.then(keep) : keep(verdict);
            },
          },
    );
  }

  /** A mark before an update: `since(mark, ...)` then sees only the verdicts given after it. */
  mark(): number {
    return this.answers.length;
  }

  /** The last verdict about PVC `namespace/name` given since `mark`; undefined when the webhook was not called for it. */
  since(mark: number, pvc: string): VoeAnswer | undefined {
    const found = this.answers
      .slice(mark)
      .filter((answer) => answer.pvc === pvc)
      .at(-1);
    if (found === undefined) return undefined;
    const { pvc: _pvc, ...answer } = found;
    return answer;
  }
}
