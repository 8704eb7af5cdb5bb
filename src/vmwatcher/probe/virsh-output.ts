import { GuestProbeError } from './guest-probe-error.js';

/** `virsh domblkinfo <domain> <target>` in bytes: Capacity (what the guest is given), Allocation, Physical (the backing file or device). */
export interface BlockInfo {
  capacity: bigint;
  allocation: bigint | undefined;
  physical: bigint | undefined;
}

/** What `virsh domblkinfo` printed, as bytes. Pure. */
export function parseDomblkinfo(text: string): BlockInfo {
  const field = (name: string): bigint | undefined => {
    const match = new RegExp(`^\\s*${name}:\\s*(\\d+)\\s*$`, 'm').exec(text);
    return match ? BigInt(match[1]!) : undefined;
  };
  const capacity = field('Capacity');
  if (capacity === undefined)
    throw new GuestProbeError(
      'PROBE_OUTPUT_UNREADABLE',
      `virsh domblkinfo printed no Capacity line: ${JSON.stringify(text.slice(0, 200))}`,
    );
  return { capacity, allocation: field('Allocation'), physical: field('Physical') };
}

/** The `return` member of a guest agent's answer (`virsh qemu-agent-command` prints it as JSON). Pure. */
export function parseAgentReturn(text: string, command: string): unknown {
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    throw new GuestProbeError(
      'PROBE_OUTPUT_UNREADABLE',
      `the guest agent's answer to ${command} is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
    );
  }
  if (typeof reply !== 'object' || reply === null || !('return' in reply))
    throw new GuestProbeError(
      'PROBE_OUTPUT_UNREADABLE',
      `the guest agent's answer to ${command} has no "return": ${JSON.stringify(text.slice(0, 200))}`,
    );
  return (reply as { return: unknown }).return;
}

/** guest-exec's answer: the pid to ask guest-exec-status about. Pure. */
export function parseExecPid(text: string): number {
  const value = parseAgentReturn(text, 'guest-exec') as { pid?: unknown } | null;
  if (typeof value?.pid !== 'number')
    throw new GuestProbeError(
      'PROBE_OUTPUT_UNREADABLE',
      `guest-exec answered without a pid: ${JSON.stringify(text.slice(0, 200))}`,
    );
  return value.pid;
}

/** guest-exec-status's answer: whether the process exited, its code and its output (decoded). */
export interface ExecStatus {
  exited: boolean;
  exitCode: number | undefined;
  /** The signal that ended it (QGA `signal`), when one did. */
  signal: number | undefined;
  stdout: string;
  stderr: string;
  /** QGA `out-truncated`, `err-truncated`: the agent kept only the start of the output. */
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/** guest-exec-status's answer (out-data and err-data are base64; QGA's GuestExecStatus in qga/qapi-schema.json). Pure. */
export function parseExecStatus(text: string): ExecStatus {
  const value = parseAgentReturn(text, 'guest-exec-status') as Record<string, unknown> | null;
  if (typeof value?.['exited'] !== 'boolean')
    throw new GuestProbeError(
      'PROBE_OUTPUT_UNREADABLE',
      `guest-exec-status answered without "exited": ${JSON.stringify(text.slice(0, 200))}`,
    );
  const decode = (data: unknown): string =>
    typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : '';
  return {
    exited: value['exited'],
    exitCode: typeof value['exitcode'] === 'number' ? value['exitcode'] : undefined,
    signal: typeof value['signal'] === 'number' ? value['signal'] : undefined,
    stdout: decode(value['out-data']),
    stderr: decode(value['err-data']),
    stdoutTruncated: value['out-truncated'] === true,
    stderrTruncated: value['err-truncated'] === true,
  };
}

/**
 * Whether virsh's error says guest-exec could not start the program (GLib's spawn error that
 * qemu-ga passes on, "Failed to execute child process ...": no /bin/sh, as in a Windows guest). Pure.
 */
export function isProgramMissing(message: string): boolean {
  return /Failed to execute child process/i.test(message);
}

/**
 * Whether virsh's error says the guest agent refuses guest-exec (qemu-ga started with
 * `--block-rpcs guest-exec`, or an allow-list without it; libvirt passes the agent's
 * "Command guest-exec has been disabled" or "... not allowed"). Pure.
 */
export function isGuestExecRefused(message: string): boolean {
  return /guest-exec\b[^\n]*(has been disabled|is disabled|not allowed|blocked)|CommandNotFound|command not found: guest-exec/i.test(
    message,
  );
}
