/**
 * Every shell block of docs/install.md and docs/troubleshooting.md is either run by
 * test/integration/docs (marked `<!-- tested: SCENARIO -->`) or says why not (`<!-- not run here:
 * REASON -->`), and every tested block splits into plain argument arrays; the splitter itself.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { fencedBlocks } from '../../support/docs/fenced-blocks.js';
import { splitCommandLines } from '../../support/docs/split-command-lines.js';
import { testedDocBlocks } from '../../support/docs/tested-docs.js';

describe('the commands of docs/install.md and docs/troubleshooting.md', () => {
  const blocks = testedDocBlocks();

  it('has shell blocks in both files', () => {
    for (const file of ['docs/install.md', 'docs/troubleshooting.md'])
      assert.isTrue(
        blocks.some((b) => b.file === file && b.lang === 'sh'),
        file,
      );
  });

  it('marks every shell block as tested or with a reason it is not run here', () => {
    const unmarked = blocks
      .filter((b) => b.lang === 'sh' && !b.tested && !b.notRunReason)
      .map((b) => `${b.file}:${b.line}`);
    assert.deepEqual(unmarked, []);
  });

  it('marks only shell blocks as tested', () => {
    const others = blocks.filter((b) => b.tested && b.lang !== 'sh');
    assert.deepEqual(
      others.map((b) => `${b.file}:${b.line}`),
      [],
    );
  });

  it('writes every tested block as commands that need no shell', () => {
    for (const block of blocks.filter((b) => b.tested)) {
      // A documented optional argument (` [-f my-values.yaml]`) is the integration test's to fill in.
      const text = block.text.replaceAll(/ \[[^\]\n'"]*\]/g, '');
      assert.isNotEmpty(splitCommandLines(text), `${block.file}:${block.line}`);
    }
  });
});

describe('fencedBlocks', () => {
  it('reads each block with its language, line, indentation removed and the marker above it', () => {
    const markdown = [
      '# t',
      '<!-- tested: one -->',
      '',
      '```sh',
      'a b',
      '```',
      '1. x',
      '   <!-- not run here: no cluster -->',
      '   ```sh',
      '   c d',
      '     e',
      '   ```',
      '```yaml',
      'k: v',
      '```',
    ].join('\n');
    assert.deepEqual(fencedBlocks(markdown), [
      { lang: 'sh', line: 4, text: 'a b', tested: 'one' },
      { lang: 'sh', line: 9, text: 'c d\n  e', notRunReason: 'no cluster' },
      { lang: 'yaml', line: 13, text: 'k: v' },
    ]);
  });
});

describe('splitCommandLines', () => {
  it('splits lines into words, with quotes, escapes, continuations and comments', () => {
    assert.deepEqual(
      splitCommandLines(
        [
          `kubectl -n ns get x -o jsonpath='{.a}{"\\n"}'   # comment`,
          'helm  template "a b" \\',
          '  --set x=\\$y "q\\"" a#b',
          '',
          '# only a comment',
        ].join('\n'),
      ),
      [
        ['kubectl', '-n', 'ns', 'get', 'x', '-o', 'jsonpath={.a}{"\\n"}'],
        ['helm', 'template', 'a b', '--set', 'x=$y', 'q"', 'a#b'],
      ],
    );
  });

  it('refuses what needs a shell', () => {
    for (const line of [
      'a | b',
      'a > f',
      'a && b',
      'a; b',
      'a $(b)',
      'a "$HOME"',
      'a *.yaml',
      'a [-f x]',
      "a 'open",
      'a "open',
    ])
      assert.throws(() => splitCommandLines(line), /.+/, undefined, line);
  });
});
