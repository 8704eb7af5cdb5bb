import { it } from 'mocha';
import { assert } from 'chai';
import { redactUrlCredentials } from '../../../src/errors/index.js';

it('the user and password of every URL in a text are redacted, nothing else', () => {
  const table: Array<[string, string]> = [
    [
      'request to https://admin:S3CRET@127.0.0.1:6443/api failed',
      'request to https://[redacted]@127.0.0.1:6443/api failed',
    ],
    [
      'http://token@host/x and HTTPS://u:p%40ss@h:1',
      'http://[redacted]@host/x and HTTPS://[redacted]@h:1',
    ],
    ['https://127.0.0.1:6443/api?who=a@b', 'https://127.0.0.1:6443/api?who=a@b'],
    ['mail admin@example.com at https://host/path', 'mail admin@example.com at https://host/path'],
    ['no URL here', 'no URL here'],
  ];
  for (const [text, redacted] of table)
    assert.strictEqual(redactUrlCredentials(text), redacted, text);
});
