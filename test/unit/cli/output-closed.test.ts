import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { EventEmitter } from 'node:events';
import {
  OUTPUT_CLOSED_EXIT_CODE,
  onOutputClosed,
  watchDiagnostics,
  watchOutput,
} from '../../../src/cli/output-closed.js';

function epipe(): NodeJS.ErrnoException {
  return Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
}

it('with nobody listening, the first EPIPE on the output exits with 141 (128 + SIGPIPE) and later ones are ignored', () => {
  const stream = new EventEmitter();
  const exits: number[] = [];
  watchOutput(stream as unknown as NodeJS.WritableStream, (code) => exits.push(code));
  stream.emit('error', epipe());
  stream.emit('error', epipe());
  stream.emit(
    'error',
    Object.assign(new Error('write after end'), { code: 'ERR_STREAM_DESTROYED' }),
  );
  assert.strictEqual(OUTPUT_CLOSED_EXIT_CODE, 141);
  assert.deepStrictEqual(exits, [141]);
});

it('a listener is told once instead of the exit, and stops being told once it unregisters', () => {
  const first = new EventEmitter();
  const exits: number[] = [];
  let told = 0;
  const unregister = onOutputClosed(() => {
    told += 1;
  });
  try {
    watchOutput(first as unknown as NodeJS.WritableStream, (code) => exits.push(code));
    first.emit('error', epipe());
    first.emit('error', epipe());
    assert.strictEqual(told, 1);
    assert.strictEqual(exits.length, 0, 'no exit while someone listens');
  } finally {
    unregister();
  }
  const second = new EventEmitter();
  watchOutput(second as unknown as NodeJS.WritableStream, (code) => exits.push(code));
  second.emit('error', epipe());
  assert.strictEqual(told, 1);
  assert.deepStrictEqual(exits, [141]);
});

it('any other error of the output is not swallowed', () => {
  const stream = new EventEmitter();
  watchOutput(stream as unknown as NodeJS.WritableStream, () => {
    assert.fail('no exit');
  });
  expectThrow(
    () => stream.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' })),
    /disk full/,
  );
});

it('an EPIPE on the diagnostics stream (stderr) is neither a crash nor a stop: voe goes on; any other error is not swallowed', () => {
  const stream = new EventEmitter();
  let told = 0;
  const unregister = onOutputClosed(() => {
    told += 1;
  });
  try {
    watchDiagnostics(stream as unknown as NodeJS.WritableStream);
    stream.emit('error', epipe());
    stream.emit('error', epipe());
    assert.strictEqual(told, 0, 'a closed stderr is not a closed output');
    expectThrow(
      () => stream.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' })),
      /disk full/,
    );
  } finally {
    unregister();
  }
});
