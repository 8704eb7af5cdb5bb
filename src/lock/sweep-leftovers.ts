import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { holderDead } from './holder-dead.js';
import { parseLockContent } from './lock-content.js';

/** A waiter's own files next to the lock: `<lock>.<token>` (its content, staged), `.helper` and `.takeover` after it. */
const LEFTOVER =
  /^\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.helper|\.takeover)?$/;

/**
 * Removes the files other processes staged next to `lockPath` and could not remove because they
 * were killed (SIGKILL, OOM) while waiting for or taking the lock: each holds its process's lock
 * content, so one whose process (and helper) has ended, in our PID namespace, is left over, as is a
 * holder's `.helper` record left empty or partly written. Called by the holder only. The files of
 * live processes, and of processes of other PID namespaces, are left alone.
 */
export function sweepLeftovers(lockPath: string, namespace: string): void {
  const directory = dirname(lockPath);
  const base = basename(lockPath);
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(base) || !LEFTOVER.test(name.slice(base.length))) continue;
    const path = join(directory, name);
    let content: string;
    try {
      content = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    // A holder's staged record (`.helper`) that names no process was cut short while being written
    // (its holder killed between creating and filling it). Only a holder stages one, and this
    // process holds the lock now, so it is a leftover too.
    const cutShort = name.endsWith('.helper') && parseLockContent(content) === null;
    if (cutShort || holderDead(content, namespace)) {
      try {
        unlinkSync(path);
      } catch {
        /* removed meanwhile */
      }
    }
  }
}
