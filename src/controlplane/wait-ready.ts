import { readFile } from 'node:fs/promises';
import { ControlPlaneError } from './control-plane-error.js';
import { probe, type TlsClient } from './http-probe.js';
import type { ManagedProcess } from './managed-process.js';
import { falseOnError, waitUntil } from '../wait/index.js';

/** The last `lines` lines of `file` ("" when it cannot be read). */
export async function tail(file: string, lines = 25): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * Waits until `url` answers 200 (probed every 200 ms). A process that exits first is
 * CONTROLPLANE_PROCESS_EXITED, one not ready within `timeoutMs` CONTROLPLANE_START_TIMEOUT (it is
 * stopped); both with the last lines of its log.
 */
export async function waitReady(
  proc: ManagedProcess,
  url: string,
  tls: TlsClient | undefined,
  timeoutMs: number,
): Promise<void> {
  let exitNote: string | undefined;
  const exited = new AbortController();
  void proc.exited.then(({ code, signal }) => {
    exitNote = `exited (code ${code}, signal ${signal})`;
    exited.abort();
  });
  const result = await waitUntil(
    falseOnError(async () => exitNote === undefined && (await probe(url, tls)) === 200),
    { timeoutMs, intervalMs: 200, signal: exited.signal },
  );
  if (result === 'ok') return;
  const code = result === 'timeout' ? 'CONTROLPLANE_START_TIMEOUT' : 'CONTROLPLANE_PROCESS_EXITED';
  const what =
    result === 'timeout' ? `did not become ready at ${url} within ${timeoutMs} ms` : exitNote;
  await proc.stop(1000);
  throw new ControlPlaneError(
    code,
    `${proc.name} ${what}; last log lines (${proc.logFile}):\n${await tail(proc.logFile)}`,
  );
}
