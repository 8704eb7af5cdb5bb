import { describe, it } from 'mocha';
import { assert } from 'chai';
import { readFile } from 'node:fs/promises';
import { ControlPlaneErrorCode } from '../../../src/controlplane/control-plane-error.js';
import { DemoErrorCode } from '../../../src/demo/demo-error.js';
import { FlexVolumeFailureCode } from '../../../src/flexvolume/flexvolume-driver.js';
import { FsResizeErrorCode } from '../../../src/fsresize/model/fsresize-error.js';
import { GuestGrowthErrorCode } from '../../../src/fsresize/model/guest-growth-error.js';
import { GuestRunErrorCode } from '../../../src/guest-grow/guest-run-error.js';
import { CsiErrorCode } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { KubeErrorCode } from '../../../src/kube/index.js';
import { SettingInvalidCode } from '../../../src/settings/setting-invalid-error.js';
import { TlsErrorCode } from '../../../src/tls/tls-error.js';
import { VmLabErrorCode } from '../../../src/demo/lab/vm-lab-error.js';
import { GuestProbeErrorCode } from '../../../src/vmwatcher/probe/guest-probe-error.js';
import { TrackerErrorCode } from '../../../src/vmwatcher/tracker-error.js';
import { CheckErrorCode } from '../../../src/check/check-error.js';
import { WebhookErrorCode } from '../../../src/webhook/webhook-error.js';

/** Every const object of codes, by the prefix its codes share. */
const CODE_OBJECTS: Record<string, Record<string, string>> = {
  CONTROLPLANE_: ControlPlaneErrorCode,
  TLS_: TlsErrorCode,
  WEBHOOK_: WebhookErrorCode,
  KUBE_: KubeErrorCode,
  FSRESIZE_: FsResizeErrorCode,
  GUESTGROW_: GuestGrowthErrorCode,
  GUESTRUN_: GuestRunErrorCode,
  FLEXVOLUME_: FlexVolumeFailureCode,
  SETTING_: SettingInvalidCode,
  CHECK_: CheckErrorCode,
  DEMO_: DemoErrorCode,
  CSI_: CsiErrorCode,
  TRACKER_: TrackerErrorCode,
  PROBE_: GuestProbeErrorCode,
  VMLAB_: VmLabErrorCode,
};

/** The codes docs/errors.md lists: the first cell of each table row, in backquotes. */
async function documentedCodes(): Promise<string[]> {
  const text = await readFile(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
  return [...text.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((m) => m[1] as string);
}

describe('error codes', () => {
  it('docs/errors.md lists exactly the codes the const objects define, each once', async () => {
    const documented = await documentedCodes();
    assert.deepStrictEqual(
      documented.filter((code, i) => documented.indexOf(code) !== i),
      [],
      'listed twice',
    );
    const defined = Object.values(CODE_OBJECTS).flatMap((codes) => Object.values(codes));
    assert.deepStrictEqual([...documented].sort(), [...defined].sort());
  });

  it('each const object holds distinct codes with its own prefix', () => {
    for (const [prefix, codes] of Object.entries(CODE_OBJECTS)) {
      const values = Object.values(codes);
      assert.strictEqual(new Set(values).size, values.length, prefix);
      for (const code of values) assert.isTrue(code.startsWith(prefix), `${code} (${prefix})`);
    }
  });
});
