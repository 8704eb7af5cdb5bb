/**
 * `npm run test:csi-sanity`: csi-sanity against `voe csi` alone, for the mount and then the block
 * access type, on a real host control plane with the host storage actor (root: loop devices).
 * csi-sanity's output goes to standard output as it comes, so the run ends with its own summary
 * (`Ran N of M Specs`, `N Passed | 0 Failed`); set-up notes go to standard error. Exits 0 when
 * both runs pass, 1 otherwise. Arguments are passed on to csi-sanity (e.g. `-- -ginkgo.v` lists
 * every spec, with the reason of each skip).
 */
import { startHostControlPlane } from './host-control-plane.js';
import { startSanityHarness } from './csi-sanity-harness.js';

const note = (line: string): boolean => process.stderr.write(`${line}\n`);

const cp = await startHostControlPlane();
let failed = false;
try {
  const harness = await startSanityHarness(cp, note);
  try {
    note(`voe csi makes ${harness.fsType.name} on mount volumes: ${harness.fsType.why}`);
    for (const accessType of ['mount', 'block'] as const) {
      note(`\n=== csi-sanity, access type ${accessType} ===`);
      const run = await harness.run(
        accessType,
        (chunk) => process.stdout.write(chunk),
        process.argv.slice(2),
      );
      if (run.exitCode !== 0 || !run.summary || run.summary.failed > 0) failed = true;
    }
    const log = await harness.driverLog();
    if (harness.secretValues.some((value) => log.includes(value.slice(0, 64))))
      throw new Error('voe csi logged the secrets it was given');
  } finally {
    await harness.stop();
  }
} finally {
  await cp.stop();
}
process.exitCode = failed ? 1 : 0;
