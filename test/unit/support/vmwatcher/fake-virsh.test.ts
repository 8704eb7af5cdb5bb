import { describe, it } from 'mocha';
import { assert } from 'chai';
import { fakeVirshAnswer, type FakeVirshFixture } from '../../../support/vmwatcher/fake-virsh.js';

const URI = 'qemu+unix:///session?socket=/var/run/libvirt/virtqemud-sock';
const FIXTURE: FakeVirshFixture = {
  uri: URI,
  domains: { ns_vm: { blklist: 'LIST\n', xml: '<domain/>\n', blkinfo: { vda: 'Capacity: 1\n' } } },
};

const CASES: Array<{ argv: string[]; code: number; stdout?: string; stderr?: RegExp }> = [
  { argv: ['-c', URI, 'domblklist', 'ns_vm'], code: 0, stdout: 'LIST\n' },
  { argv: ['-c', URI, 'dumpxml', 'ns_vm'], code: 0, stdout: '<domain/>\n' },
  { argv: ['-c', URI, 'domblkinfo', 'ns_vm', 'vda'], code: 0, stdout: 'Capacity: 1\n' },
  {
    argv: ['-c', URI, 'domblkinfo', 'ns_other', 'vda'],
    code: 1,
    stderr: /^error: failed to get domain 'ns_other'\n$/,
  },
  { argv: ['-c', URI, 'domblkinfo', 'ns_vm', 'vdb'], code: 1, stderr: /invalid path vdb/ },
  { argv: ['-c', 'qemu:///system', 'domblklist', 'ns_vm'], code: 1, stderr: /failed to connect/ },
  { argv: ['domblklist', 'ns_vm'], code: 1, stderr: /failed to connect/ },
  { argv: ['-c', URI, 'undefine', 'ns_vm'], code: 1, stderr: /unknown command: 'undefine'/ },
];

describe('the fake virsh', () => {
  for (const { argv, code, stdout, stderr } of CASES)
    it(argv.join(' '), () => {
      const answer = fakeVirshAnswer(argv, FIXTURE);
      assert.strictEqual(answer.code, code);
      if (stdout !== undefined) assert.strictEqual(answer.stdout, stdout);
      if (stderr) assert.match(answer.stderr, stderr);
    });
});
