import type {
  GuestAgent,
  GuestCommand,
  GuestCommandResult,
} from '../../../src/guest-grow/index.js';

/** What the scripted agent answers for one command; exit 0 and no output unless told. */
export interface ScriptedReply {
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  timedOut?: boolean;
  stdoutTruncated?: boolean;
}

/** What the guest prints for each reading command (argv joined by spaces) at one stage. */
export type GuestStage = Record<string, string | ScriptedReply>;

/**
 * A guest agent answering from a script: the reading commands (lsblk, sfdisk --json, dumpe2fs...)
 * answer from the current stage; any other command is a step, which exits 0 (or as `steps` says)
 * and, when it exits 0, moves the guest to the next stage: the sequence of what the guest shows
 * as the steps run. `tools` answers the tools script (/bin/sh -c ...). A reading command the
 * stage lacks exits 127, as a missing program does in guest-exec's sh.
 */
export class ScriptedAgent implements GuestAgent {
  readonly name = 'scripted';
  readonly calls: GuestCommand[] = [];
  stage = 0;
  /** guest-get-fsinfo's `return` at each stage (none listed when unset). */
  fsinfoByStage: readonly unknown[] = [];

  constructor(
    readonly stages: readonly GuestStage[],
    readonly tools: readonly string[],
    readonly steps: Record<string, ScriptedReply> = {},
  ) {}

  /** The step commands run, in order (the reading commands left out). */
  get ran(): string[][] {
    return this.calls
      .map((call) => [...call.argv])
      .filter((argv) => argv[0] !== '/bin/sh' && !this.#isReading(argv.join(' ')));
  }

  #isReading(key: string): boolean {
    return this.stages.some((stage) => key in stage);
  }

  async exec(command: GuestCommand): Promise<GuestCommandResult> {
    this.calls.push(command);
    const key = command.argv.join(' ');
    if (command.argv[0] === '/bin/sh')
      return result({ stdout: this.tools.map((t) => `${t}\n`).join('') });
    if (this.#isReading(key)) {
      const reply = this.stages[this.stage]![key];
      if (reply === undefined)
        return result({ exitCode: 127, stderr: `${command.argv[0]}: not found` });
      return result(typeof reply === 'string' ? { stdout: reply } : reply);
    }
    const reply = result(this.steps[key] ?? {});
    if (reply.exitCode === 0 && !reply.timedOut)
      this.stage = Math.min(this.stage + 1, this.stages.length - 1);
    return reply;
  }

  async fsinfo(): Promise<unknown> {
    return this.fsinfoByStage[this.stage] ?? [];
  }
}

function result(reply: ScriptedReply): GuestCommandResult {
  return {
    exitCode: reply.timedOut ? undefined : (reply.exitCode ?? 0),
    stdout: reply.stdout ?? '',
    stderr: reply.stderr ?? '',
    stdoutTruncated: reply.stdoutTruncated ?? false,
    stderrTruncated: false,
    timedOut: reply.timedOut ?? false,
  };
}
