import { describe, it } from 'mocha';
import { assert } from 'chai';
import { commandNamed } from '../../../../src/cli/command-named.js';
import { createProgram } from '../../../../src/cli/program.js';
import { runVoe } from '../../../support/run-voe.js';

const ALL = [
  'demo',
  'cluster',
  'fsresize',
  'flexvolume',
  'serve',
  'check',
  'csi',
  'certs',
  'crds',
  'watch',
  'status',
  'enable',
  'disable',
  'guest',
];

/** The commands createProgram registers for `name`. */
async function registered(name?: string): Promise<string[]> {
  return (await createProgram(name)).commands.map((command) => command.name());
}

describe('createProgram and registerCommands', () => {
  const cases: Array<{ name: string | undefined; expected: string[] }> = [
    { name: 'csi', expected: ['csi'] },
    { name: 'watch', expected: ['watch'] },
    { name: 'serve', expected: ['serve'] },
    { name: undefined, expected: ALL },
    { name: 'help', expected: ALL },
    { name: 'sevre', expected: ALL },
    { name: 'toString', expected: ALL },
  ];
  for (const { name, expected } of cases)
    it(`registers ${expected.length === 1 ? `only ${expected[0]}` : 'every command'} for ${String(name)}`, async () => {
      assert.deepEqual(await registered(name), expected);
    });

  it('gives the one command the same options as the full program does', async () => {
    const alone = (await createProgram('csi')).commands[0]!;
    const inFull = (await createProgram()).commands.find((command) => command.name() === 'csi')!;
    assert.deepEqual(
      alone.options.map((option) => option.flags),
      inFull.options.map((option) => option.flags),
    );
  });
});

describe('voe with a misspelt or no command', () => {
  it('--help lists every command', async () => {
    const { code, stdout } = await runVoe(['--help'], { timeout: 30_000 });
    assert.strictEqual(code, 0);
    for (const name of ALL) assert.match(stdout, new RegExp(`^  ${name}\\b`, 'm'), name);
  });

  it('a misspelt command is suggested the one it resembles', async () => {
    const { code, stderr } = await runVoe(['sevre'], { timeout: 30_000 });
    assert.strictEqual(code, 2);
    assert.include(stderr, "unknown command 'sevre'");
    assert.include(stderr, '(Did you mean serve?)');
  });
});

describe('commandNamed', () => {
  const cases: Array<{ argv: string[]; expected: string | undefined }> = [
    { argv: ['node', 'voe', 'csi', '--endpoint', 'unix:///x'], expected: 'csi' },
    { argv: ['node', 'voe', '--help'], expected: undefined },
    { argv: ['node', 'voe'], expected: undefined },
    { argv: ['node', 'voe', 'help', 'watch'], expected: 'help' },
  ];
  for (const { argv, expected } of cases)
    it(`reads ${String(expected)} from ${argv.slice(2).join(' ') || 'no arguments'}`, () => {
      assert.strictEqual(commandNamed(argv), expected);
    });
});
