import { it } from 'mocha';
import { assert } from 'chai';
import { sizeFromFootprint } from '../../../bench/support/memory-sizing.js';

for (const { what, atScale, sizing } of [
  {
    what: 'the heap twice the used heap, the request the peak, the limit the request plus the heap room',
    atScale: { peakMiB: 189.6, heapUsedMiB: 84.2 },
    sizing: { maxOldSpaceMiB: 176, requestMiB: 192, limitMiB: 288 },
  },
  {
    what: 'a small heap gets 64 MiB of old generation',
    atScale: { peakMiB: 80.5, heapUsedMiB: 12 },
    sizing: { maxOldSpaceMiB: 64, requestMiB: 96, limitMiB: 160 },
  },
  {
    what: 'without a heap reading: no heap flag, the limit the request',
    atScale: { peakMiB: 70 },
    sizing: { requestMiB: 80, limitMiB: 96 },
  },
])
  it(`sizeFromFootprint: ${what}`, () => {
    assert.deepStrictEqual(sizeFromFootprint(atScale), sizing);
  });
