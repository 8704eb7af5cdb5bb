import { VoeError } from '../errors/index.js';

/** Codes: TLS_INVALID_OPTIONS, TLS_UNSUPPORTED_KEY, TLS_INVALID_PEM (see docs/errors.md "TLS"). */
export class TlsError extends VoeError {}
