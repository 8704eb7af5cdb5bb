import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../log/index.js';

/** The watches on the directories holding the certificate and key. */
export interface CertificateDirectoryWatch {
  /**
   * Watches the directories at their paths now, closing the watches made before. A watch follows
   * the directory it was set on: one removed and made again, or renamed over (a deploy's
   * `rm -r certs && cp -r new certs`), would tell nothing more, so each read watches anew first.
   * `quiet`: a directory that cannot be watched is logged at debug, not warn.
   */
  rewatch(quiet: boolean): void;
  close(): void;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Watches `directories` (not the files: a mounted Kubernetes Secret replaces them by swapping the
 * `..data` symlink, which only the directory sees) and calls `onChange` at every event.
 */
export function watchCertificateDirectories(
  directories: readonly string[],
  onChange: () => void,
  log: Logger,
): CertificateDirectoryWatch {
  let watchers: FSWatcher[] = [];
  const watchOne = (dir: string, quiet: boolean): void => {
    try {
      const watcher = watch(dir, { persistent: false }, onChange);
      watcher.on('error', (error) =>
        log.warn(
          { dir, error: message(error) },
          'stopped watching the certificate directory; changes are still picked up by polling',
        ),
      );
      watchers.push(watcher);
    } catch (error) {
      // Missing for a moment (removed and being made again): the next read watches it again.
      if (quiet)
        log.debug(
          { dir, error: message(error) },
          'cannot watch the certificate directory now; trying again at the next read',
        );
      else
        log.warn(
          { dir, error: message(error) },
          'cannot watch the certificate directory; changes are picked up by polling only',
        );
    }
  };
  const close = (): void => {
    for (const watcher of watchers) watcher.close();
    watchers = [];
  };
  return {
    rewatch(quiet) {
      close();
      for (const dir of directories) watchOne(dir, quiet);
    },
    close,
  };
}
