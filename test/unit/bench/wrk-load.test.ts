import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWrkOutput } from '../../../bench/support/wrk-load.js';

const output = `Running 2s test @ https://127.0.0.1:33811/validate/pvc-resize
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   827.51us    1.08ms  12.84ms   94.60%
    Req/Sec    24.56k     7.60k   31.75k    85.00%
  Latency Distribution
     50%  582.00us
     75%  704.00us
     90%    1.13ms
     99%    6.64ms
  48878 requests in 2.01s, 13.10MB read
Requests/sec:  24333.96
Transfer/sec:      6.52MB
`;

test('reads what wrk --latency prints: answers, rate, p50 and p99 in ms', () => {
  assert.deepEqual(parseWrkOutput(output), {
    requests: 48878,
    durationS: 2.01,
    requestsPerSecond: 24333.96,
    p50Ms: 0.582,
    p99Ms: 6.64,
    non2xx: 0,
    socketErrors: 0,
  });
});

test('counts non-2xx answers and socket errors, and reads latencies in s', () => {
  const failing = output
    .replace('     99%    6.64ms', '     99%    1.20s')
    .replace(
      '13.10MB read\n',
      '13.10MB read\n  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 17\n',
    );
  const result = parseWrkOutput(failing);
  assert.equal(result.p99Ms, 1200);
  assert.equal(result.non2xx, 17);
  assert.equal(result.socketErrors, 10);
});

test('output without results is an error that quotes it', () => {
  assert.throws(
    () => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused\n'),
    /wrk printed no results .*unable to connect/,
  );
  assert.throws(
    () => parseWrkOutput(output.replace('582.00us', '582.00xs')),
    /not a duration: "582.00xs"/,
  );
});
