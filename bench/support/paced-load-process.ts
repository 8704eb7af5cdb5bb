/**
 * Runs pacedLoad in a fresh process (forked by bench/webhook.bench.ts) so the fixed-rate generator
 * does not share a heap and event loop with the bench process (which built the reviews). Options arrive over IPC,
 * the result goes back the same way.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pacedLoad, type PacedResult } from './paced-load.js';

type Options = Parameters<typeof pacedLoad>[0];

/** Parent side: runs one paced load in a child process. */
export function pacedLoadInProcess(options: Options): Promise<PacedResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (result: PacedResult) => {
      resolve(result);
      child.disconnect();
    });
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`paced load process exited with ${code}`));
    });
    child.send(options);
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', (options: Options) => {
    pacedLoad(options).then(
      (result) => process.send?.(result),
      (error: unknown) => {
        process.stderr.write(`${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
