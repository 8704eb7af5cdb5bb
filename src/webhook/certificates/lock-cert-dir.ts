import { join } from 'node:path';
import { acquireLockFile } from '../../lock/index.js';
import { CERT_DIR_LOCK } from './sweep-dev-cert-dirs.js';
import { WebhookError } from '../webhook-error.js';

/** WEBHOOK_INVALID_OPTIONS for a --cert-dir (or temporary directory) the dev certificate cannot be written to; `why` is the errno or message. */
export function certDirUnwritable(dir: string, why: string, cause: unknown): WebhookError {
  return new WebhookError(
    'WEBHOOK_INVALID_OPTIONS',
    `The dev certificate cannot be written to ${dir} (${why}); pass a --cert-dir voe may create and write.`,
    { cause },
  );
}

/** Takes DIR/voe-serve.lock at once, or fails with WEBHOOK_CERT_DIR_IN_USE naming the instance that holds it. */
export function lockCertDir(dir: string): Promise<() => Promise<void>> {
  return acquireLockFile(join(dir, CERT_DIR_LOCK), {
    deadline: Date.now(),
    busy: (holder) =>
      new WebhookError(
        'WEBHOOK_CERT_DIR_IN_USE',
        `--cert-dir ${dir} is used by another voe serve --dev (pid ${holder}), ` +
          'whose registered webhook trusts the certificate there; nothing was changed. Give this one another --cert-dir, or stop that one first.',
      ),
    cannotCreate: (code, cause) => certDirUnwritable(dir, code, cause),
  });
}
