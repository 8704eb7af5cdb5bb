import { describe, it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { GuestStep } from '../../../../src/fsresize/model/guest-growth-plan.js';
import { renderGuestCommands } from '../../../../src/fsresize/plan/render-guest-commands.js';
import { windowsResizeArgv } from '../../../../src/fsresize/plan/plan-windows-growth.js';

const expect = { reading: 'partition' as const, of: '/dev/vdb1', beforeBytes: 1, atLeastBytes: 2 };

function step(argv: string[], stdin?: string): GuestStep {
  return { argv, ...(stdin === undefined ? {} : { stdin }), why: 'test', expect };
}

/** Runs `line` in sh with each tool replaced by a function that prints its arguments and standard input. */
async function argvAndStdin(
  line: string,
  tool: string,
): Promise<{ argv: string[]; stdin: string }> {
  const { stdout } = await promisify(execFile)('sh', [
    '-c',
    `exec </dev/null; ${tool}() { for a in "$@"; do printf '%s\\0' "$a"; done; printf '\\1'; cat; }; ${line}`,
  ]);
  const [args = '', stdin = ''] = stdout.split('\u0001');
  return { argv: args.split('\0').slice(0, -1), stdin };
}

describe('renderGuestCommands', () => {
  it("Linux: the exact lines, arguments quoted, sfdisk's script piped in by printf", () => {
    const lines = renderGuestCommands({
      guest: 'linux',
      steps: [
        step(['sfdisk', '--relocate', 'gpt-bak-std', '/dev/vdb']),
        step(['sfdisk', '--no-reread', '--no-tell-kernel', '-N', '1', '/dev/vdb'], ', +\n'),
        step(['partx', '--update', '--nr', '1', '/dev/vdb']),
        step(['xfs_growfs', '-d', "/srv/it's data"]),
      ],
    });
    assert.deepStrictEqual(lines, [
      'sfdisk --relocate gpt-bak-std /dev/vdb',
      "printf '%s\\n' ', +' | sfdisk --no-reread --no-tell-kernel -N 1 /dev/vdb",
      'partx --update --nr 1 /dev/vdb',
      "xfs_growfs -d '/srv/it'\\''s data'",
    ]);
  });

  it("Linux: what sh reads back is the step's argv and standard input, whatever they hold", async () => {
    const cases: Array<[string[], string | undefined]> = [
      [['sfdisk', '--no-reread', '--no-tell-kernel', '-N', '1', '/dev/vdb'], ', +\n'],
      [['sfdisk', '-N', '2', '/dev/nvme0n1'], ', 4294967295\n'],
      [['sfdisk', '-N', '2', '/dev/vdb'], 'no newline $HOME `id`'],
      [['sfdisk', '$(id)', '*', 'a b', "it's", ''], 'line 1\nline 2\n'],
    ];
    for (const [argv, stdin] of cases) {
      const [line] = renderGuestCommands({ guest: 'linux', steps: [step(argv, stdin)] });
      assert.deepStrictEqual(await argvAndStdin(line!, 'sfdisk'), {
        argv: argv.slice(1),
        stdin: stdin ?? '',
      });
    }
  });

  it('Windows: the PowerShell command for a PowerShell prompt', () => {
    assert.deepStrictEqual(
      renderGuestCommands({ guest: 'windows', steps: [step(windowsResizeArgv('C'))] }),
      ['Resize-Partition -DriveLetter C -Size (Get-PartitionSupportedSize -DriveLetter C).SizeMax'],
    );
  });

  it('no steps, no lines', () => {
    assert.deepStrictEqual(renderGuestCommands({ guest: 'linux', steps: [] }), []);
  });
});
