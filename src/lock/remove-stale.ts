import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';

/** A takeover marker older than this was left by a process that died in the middle of one (they take microseconds). */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes the stale lock file whose content is `holder`, if it still is; false when another waiter
 * is taking over (then wait and look again). Takeovers are serialised
 * through a second atomically created file (`<lock>.takeover`), so of several waiters that found the
 * same stale lock one removes it, and none removes a lock another waiter has since created.
 */
export async function removeStale(
  lockPath: string,
  holder: string,
  marker: string,
  markerContent: string,
): Promise<boolean> {
  const takeover = `${lockPath}.takeover`;
  try {
    await writeFile(marker, markerContent, { flag: 'wx' });
    await link(marker, takeover);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another waiter is taking over; a marker left by a process that died mid-takeover is cleared.
    const age = await stat(takeover).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > TAKEOVER_STALE_MS) await unlink(takeover).catch(() => undefined);
    return false;
  } finally {
    await unlink(marker).catch(() => undefined);
  }
  try {
    if ((await readFile(lockPath, 'utf8').catch(() => '')) === holder)
      await unlink(lockPath).catch(() => undefined);
  } finally {
    if ((await readFile(takeover, 'utf8').catch(() => '')) === markerContent)
      await unlink(takeover).catch(() => undefined);
  }
  return true;
}
