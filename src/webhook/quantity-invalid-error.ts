import { VoeError } from '../errors/index.js';

/** `QUANTITY_INVALID`: a string is not a Kubernetes resource quantity. */
export class QuantityInvalidError extends VoeError {
  declare readonly code: 'QUANTITY_INVALID';

  constructor(text: string) {
    super('QUANTITY_INVALID',
      `"${text}" is not a Kubernetes quantity; write a number with an optional suffix, e.g. 20Gi, 500M or 1e9.`,
      { details: { text } });
  }
}
