import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createTurnBatcher, TURN_BATCH_LIMIT } from '../../../src/webhook/create-turn-batcher.js';

test('the items added in one turn reach run together, in order, in a later phase of that turn (setImmediate), not synchronously', async () => {
  const batches: number[][] = [];
  const add = createTurnBatcher<number>({
    run: (items) => batches.push([...items]),
    onError: () => assert.fail('run did not throw'),
  });
  add(1);
  add(2);
  add(3);
  assert.deepEqual(batches, [], 'nothing runs while the turn still adds');
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(batches, [[1, 2, 3]]);
  // The next turn's items are their own batch.
  add(4);
  await nextTurn();
  assert.deepEqual(batches, [[1, 2, 3], [4]]);
});

test('a turn with more items than the limit runs them in order, at most limit at a time, all in that turn', async () => {
  const batches: number[][] = [];
  const add = createTurnBatcher<number>({
    run: (items) => batches.push([...items]),
    onError: () => assert.fail('run did not throw'),
    limit: 3,
  });
  for (let i = 1; i <= 7; i++) add(i);
  await nextTurn();
  assert.deepEqual(batches, [[1, 2, 3], [4, 5, 6], [7]]);
  assert.equal(TURN_BATCH_LIMIT, 32);
});

test('the default limit is TURN_BATCH_LIMIT; a limit below 1 is 1', async () => {
  const sizes: number[] = [];
  const add = createTurnBatcher<number>({
    run: (items) => sizes.push(items.length),
    onError: () => assert.fail('run did not throw'),
  });
  for (let i = 0; i < TURN_BATCH_LIMIT + 1; i++) add(i);
  await nextTurn();
  assert.deepEqual(sizes, [TURN_BATCH_LIMIT, 1]);
  const single: number[][] = [];
  const addOne = createTurnBatcher<number>({
    run: (items) => single.push([...items]),
    onError: () => assert.fail('run did not throw'),
    limit: 0,
  });
  addOne(1);
  addOne(2);
  await nextTurn();
  assert.deepEqual(single, [[1], [2]]);
});

test('when run throws, onError gets the error and that batch; the next batches of the turn still run', async () => {
  const ran: number[][] = [];
  const failed: Array<[string, number[]]> = [];
  const add = createTurnBatcher<number>({
    run: (items) => {
      if (items.includes(2)) throw new Error('bug');
      ran.push([...items]);
    },
    onError: (error, items) => failed.push([(error as Error).message, [...items]]),
    limit: 2,
  });
  add(1);
  add(2);
  add(3);
  await nextTurn();
  assert.deepEqual(failed, [['bug', [1, 2]]]);
  assert.deepEqual(ran, [[3]]);
});

test('an item added while a batch runs goes into a batch of its own, not lost', async () => {
  const batches: string[][] = [];
  let add: (item: string) => void = () => undefined;
  add = createTurnBatcher<string>({
    run: (items) => {
      batches.push([...items]);
      if (items.includes('a')) add('added while running');
    },
    onError: () => assert.fail('run did not throw'),
  });
  add('a');
  await nextTurn();
  await nextTurn();
  assert.deepEqual(batches, [['a'], ['added while running']]);
});
