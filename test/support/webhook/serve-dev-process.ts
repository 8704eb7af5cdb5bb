import { spawn, type ChildProcess } from 'node:child_process';
import { eventually } from '../eventually.js';

const MAIN = 'dist/src/cli/main.js';

/** Why waiting on `child` is pointless: it exited (what it printed on stderr), else undefined. */
function exitedWith(child: ChildProcess, stderr: () => string): string | undefined {
  return child.exitCode === null && child.signalCode === null
    ? undefined
    : `voe serve exited: ${stderr()}`;
}

/** A running `voe serve --dev` (the real CLI) and what it printed. */
export interface ServeDevProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Its pino log lines (stdout), parsed. */
  logs(): Array<Record<string, unknown>>;
  /** Resolves when it exited: the exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits until a log line has message `msg` (and passes `where`); returns it. */
  waitForLog(
    msg: string | RegExp,
    timeoutMs?: number,
    where?: (line: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `voe serve --dev --kubeconfig K --port 0` plus `args` (with `env`, default this process's); does not wait for anything. Register
 * `kill()` of the child in an `after` hook: a test that fails half-way must not leave it running.
 */
export function spawnServeDev(
  kubeconfig: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): ServeDevProcess {
  const child = spawn(
    process.execPath,
    [MAIN, 'serve', '--dev', '--kubeconfig', kubeconfig, '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const logs = (): Array<Record<string, unknown>> =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const find = (msg: string | RegExp, where: (line: Record<string, unknown>) => boolean) =>
    logs().find(
      (l) => (typeof msg === 'string' ? l['msg'] === msg : msg.test(String(l['msg']))) && where(l),
    );
  return {
    child,
    pid: child.pid!,
    exited,
    logs,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitForLog(msg, timeoutMs = 60_000, where = () => true) {
      await eventually(
        () => find(msg, where) !== undefined,
        timeoutMs,
        `the log line ${String(msg)}`,
        {
          giveUp: () => exitedWith(child, () => stderr),
        },
      );
      return find(msg, where)!;
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Waits until `voe serve` printed `webhooks at URL` on stderr (it has started); returns the URL and port. */
export async function servingUrl(
  serve: ServeDevProcess,
  timeoutMs = 60_000,
): Promise<{ url: string; port: number }> {
  const pattern = /webhooks at (https:\/\/127\.0\.0\.1:(\d+))/;
  await eventually(() => pattern.test(serve.stderr()), timeoutMs, 'it served', {
    giveUp: () => exitedWith(serve.child, serve.stderr),
  });
  const match = pattern.exec(serve.stderr())!;
  return { url: match[1]!, port: Number(match[2]) };
}
