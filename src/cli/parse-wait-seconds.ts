import { InvalidArgumentError } from 'commander';

/** Most seconds a Node timer keeps (2^31-1 ms): a longer wait would fire at once. */
const MAX_WAIT_SECONDS = 2_147_483;

/** A command-line wait in seconds (`--timeout`, `--cache-sync-timeout`...): a number from 1 to 2147483. */
export function parseWaitSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 1 || seconds > MAX_WAIT_SECONDS)
    throw new InvalidArgumentError(`must be a number of seconds from 1 to ${MAX_WAIT_SECONDS}`);
  return seconds;
}
