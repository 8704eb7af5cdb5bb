import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  GuestRunError,
  linuxGrowthProver,
  type GuestAgent,
} from '../../../../src/guest-grow/index.js';

/** A guest agent whose guest-get-fsinfo answers `answers` in turn (an Error rejects). */
function agentAnswering(answers: unknown[]): GuestAgent {
  let call = 0;
  return {
    name: 'scripted',
    exec: () => Promise.reject(new Error('no guest-exec here')),
    fsinfo: () => {
      const answer = answers[Math.min(call++, answers.length - 1)];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
}

/** guest-get-fsinfo's answer with /data at `total` bytes (no total-bytes when undefined). */
const fsinfo = (total: number | undefined): unknown[] => [
  {
    name: 'sdb1',
    mountpoint: '/data',
    type: 'ext4',
    disk: [],
    ...(total === undefined ? {} : { 'total-bytes': total, 'used-bytes': 0 }),
  },
];

describe('linuxGrowthProver: the growth of a Linux mount point proven by guest-get-fsinfo', () => {
  const cases: Array<{
    name: string;
    answers: unknown[];
    mountPoint?: string;
    proof?: { beforeBytes: bigint; afterBytes: bigint };
    code?: string;
  }> = [
    {
      name: 'larger after: the sizes the agent answers',
      answers: [fsinfo(1000), fsinfo(2000)],
      proof: { beforeBytes: 1000n, afterBytes: 2000n },
    },
    {
      name: 'no larger after: not reached',
      answers: [fsinfo(1000), fsinfo(1000)],
      code: 'GUESTRUN_SIZE_NOT_REACHED',
    },
    {
      name: 'no total-bytes (QEMU before 3.0): no proof',
      answers: [fsinfo(undefined), fsinfo(undefined)],
    },
    {
      name: 'an agent refusing guest-get-fsinfo: no proof',
      answers: [new Error('Command guest-get-fsinfo has been disabled')],
    },
    { name: 'the mount point not listed: no proof', answers: [[], []] },
    {
      name: 'no mount point (a plan without a filesystem step): no proof',
      answers: [fsinfo(1000)],
      mountPoint: '',
    },
  ];
  for (const c of cases)
    it(c.name, async () => {
      const mountPoint = c.mountPoint === '' ? undefined : (c.mountPoint ?? '/data');
      const prove = await linuxGrowthProver(agentAnswering(c.answers), mountPoint, 1000);
      if (c.code) {
        const error = await prove().then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.instanceOf(error, GuestRunError);
        assert.strictEqual((error as GuestRunError).code, c.code);
        assert.include((error as GuestRunError).message, '/data');
        return;
      }
      const proof = await prove();
      if (c.proof) assert.deepStrictEqual(proof, { mountPoint: '/data', ...c.proof });
      else assert.isUndefined(proof);
    });
});
