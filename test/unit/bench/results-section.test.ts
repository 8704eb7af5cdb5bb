import { it } from 'mocha';
import { assert } from 'chai';
import { replaceResults, resultMarkers } from '../../../bench/support/results-section.js';
import { expectThrow } from '../../support/expect-error.js';

const { start, end } = resultMarkers('webhook');
const other = resultMarkers('fsresize');

it("replaceResults rewrites only what is between the benchmark's own markers, keeping them and the rest", () => {
  const text = [
    '# Performance',
    other.start,
    'fsresize table',
    other.end,
    '## Webhook',
    start,
    'old table',
    end,
    'after',
    '',
  ].join('\n');
  const replaced = replaceResults(text, 'webhook', '\n| new | table |\n');
  assert.strictEqual(
    replaced,
    [
      '# Performance',
      other.start,
      'fsresize table',
      other.end,
      '## Webhook',
      start,
      '',
      '| new | table |',
      '',
      end,
      'after',
      '',
    ].join('\n'),
  );
  assert.strictEqual(replaceResults(replaced, 'webhook', '| new | table |'), replaced);
});

it('replaceResults refuses a text without the markers, with them twice or in the wrong order', () => {
  for (const text of [
    'no markers',
    `${start}\nonly the start`,
    `${end}\n${start}\n`,
    `${start}\n${end}\n${start}\n${end}\n`,
  ]) {
    expectThrow(
      () => replaceResults(text, 'webhook', 'x'),
      /must hold the lines .* once each and in that order/,
    );
  }
});
