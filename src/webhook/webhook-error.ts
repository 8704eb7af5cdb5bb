import { VoeError } from '../errors/index.js';

/**
 * Codes: WEBHOOK_TLS_LOAD_FAILED, WEBHOOK_DUPLICATE_PATH, WEBHOOK_LISTEN_FAILED,
 * WEBHOOK_REGISTRATION_FAILED, WEBHOOK_INVALID_OPTIONS, WEBHOOK_API_FAILED (see docs/errors.md "Webhook").
 */
export class WebhookError extends VoeError {}
