import { VoeError } from '../errors/index.js';

/** Stable codes of WebhookError (documented in docs/errors.md, section "webhook"). */
export const WebhookErrorCode = {
  TlsLoadFailed: 'WEBHOOK_TLS_LOAD_FAILED',
  DuplicatePath: 'WEBHOOK_DUPLICATE_PATH',
  ListenFailed: 'WEBHOOK_LISTEN_FAILED',
  RegistrationFailed: 'WEBHOOK_REGISTRATION_FAILED',
  ConfigurationNotOurs: 'WEBHOOK_CONFIGURATION_NOT_OURS',
  ConfigurationInUse: 'WEBHOOK_CONFIGURATION_IN_USE',
  InvalidOptions: 'WEBHOOK_INVALID_OPTIONS',
  ApiFailed: 'WEBHOOK_API_FAILED',
  StartAborted: 'WEBHOOK_START_ABORTED',
  CleanupFailed: 'WEBHOOK_CLEANUP_FAILED',
  CertDirInUse: 'WEBHOOK_CERT_DIR_IN_USE',
} as const;

export type WebhookErrorCode = (typeof WebhookErrorCode)[keyof typeof WebhookErrorCode];

export class WebhookError extends VoeError<WebhookErrorCode> {}
