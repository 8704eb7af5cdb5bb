/**
 * A fake `virsh` whose domains have a guest agent: `qemu-agent-command` answers guest-exec and
 * guest-exec-status as QEMU's agent does (qga/commands.c qmp_guest_exec: a pid; then
 * qmp_guest_exec_status: exited, exitcode, out-data and err-data in base64), from what the guest
 * prints for each command, and guest-get-fsinfo from the fixture's `fsinfo`; every other virsh
 * command is fakeVirshAnswer's. The executable is a
 * process per call, so the pid names the command (its place in the guest's list) and nothing is
 * kept between calls but the log: each guest-exec's argv and standard input, one JSON line.
 */
import { appendFileSync } from 'node:fs';
import {
  fakeVirshAnswer,
  installFakeVirsh,
  type FakeVirshFixture,
} from '../vmwatcher/fake-virsh.js';

/** What the guest prints for one command (its argv joined by spaces). */
export interface FakeGuestReply {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
}

export interface FakeAgentFixture extends FakeVirshFixture {
  /** By domain: the guest's replies by command. */
  guests: Record<string, Record<string, FakeGuestReply>>;
  /** The file each guest-exec is logged to. */
  log: string;
  /** By domain: what guest-get-fsinfo returns (qga/qapi-schema.json GuestFilesystemInfo list). */
  fsinfo?: Record<string, unknown>;
}

/** A guest-exec not in the guest's list: what guest-exec-status gives for a program that is not there. */
const UNKNOWN_PID = 9999;

function agentAnswer(
  domain: string | undefined,
  request: { execute?: string; arguments?: Record<string, unknown> },
  fixture: FakeAgentFixture,
): { stdout: string; stderr: string; code: number } {
  const guest = domain === undefined ? undefined : fixture.guests[domain];
  if (guest === undefined)
    return { stdout: '', stderr: `error: failed to get domain '${domain ?? ''}'\n`, code: 1 };
  const keys = Object.keys(guest);
  const ok = (value: unknown) => ({
    stdout: `${JSON.stringify({ return: value })}\n`,
    stderr: '',
    code: 0,
  });
  if (request.execute === 'guest-exec') {
    const args = request.arguments ?? {};
    const argv = [String(args['path']), ...((args['arg'] as string[] | undefined) ?? [])];
    const stdin = args['input-data'];
    appendFileSync(
      fixture.log,
      `${JSON.stringify({ argv, ...(typeof stdin === 'string' ? { stdin: Buffer.from(stdin, 'base64').toString() } : {}) })}\n`,
    );
    const index = keys.indexOf(argv.join(' '));
    return ok({ pid: index < 0 ? UNKNOWN_PID : index + 1 });
  }
  if (request.execute === 'guest-exec-status') {
    const pid = Number(request.arguments?.['pid']);
    const reply =
      pid === UNKNOWN_PID ? { exitCode: 127, stderr: 'not found\n' } : guest[keys[pid - 1] ?? ''];
    if (reply === undefined)
      return { stdout: '', stderr: `error: internal error: Invalid parameter 'pid'\n`, code: 1 };
    const b64 = (text: string | undefined) => Buffer.from(text ?? '').toString('base64');
    return ok({
      exited: true,
      exitcode: reply.exitCode ?? 0,
      'out-data': b64(reply.stdout),
      'err-data': b64(reply.stderr),
    });
  }
  if (request.execute === 'guest-get-fsinfo' && fixture.fsinfo?.[domain ?? ''] !== undefined)
    return ok(fixture.fsinfo[domain ?? '']);
  return {
    stdout: '',
    stderr: `error: internal error: unable to execute QEMU agent command '${request.execute ?? ''}'\n`,
    code: 1,
  };
}

/** What the fake answers for `argv` (the arguments after `virsh`). */
export function fakeAgentVirshAnswer(
  argv: readonly string[],
  fixture: FakeAgentFixture,
): { stdout: string; stderr: string; code: number } {
  if (argv[2] !== 'qemu-agent-command' || argv[0] !== '-c' || argv[1] !== fixture.uri)
    return fakeVirshAnswer(argv, fixture);
  const rest = argv.slice(3);
  const operands = rest[0] === '--timeout' ? rest.slice(2) : rest;
  return agentAnswer(operands[0], JSON.parse(operands[1] ?? '{}'), fixture);
}

export function fakeAgentVirshMain(fixture: FakeAgentFixture): void {
  const answer = fakeAgentVirshAnswer(process.argv.slice(2), fixture);
  process.stdout.write(answer.stdout);
  process.stderr.write(answer.stderr);
  process.exitCode = answer.code;
}

/** Writes the executable `virsh` into `dir` for `fixture`; resolves with `dir`. */
export function installFakeAgentVirsh(dir: string, fixture: FakeAgentFixture): Promise<string> {
  return installFakeVirsh(dir, fixture, { module: import.meta.url, name: 'fakeAgentVirshMain' });
}
