import { describe, it } from 'mocha';
import { assert } from 'chai';
import { readFile } from 'node:fs/promises';
import { ControlPlaneErrorCode } from '../../../src/controlplane/index.js';
import { DemoErrorCode } from '../../../src/demo/index.js';
import { FlexVolumeFailureCode } from '../../../src/flexvolume/index.js';
import { FsResizeErrorCode } from '../../../src/fsresize/index.js';
import { CsiErrorCode } from '../../../src/guest-csi-bridge/index.js';
import { KubeErrorCode } from '../../../src/kube/index.js';
import { SettingInvalidCode } from '../../../src/settings/index.js';
import { TlsErrorCode } from '../../../src/tls/index.js';
import {
  GuestProbeErrorCode,
  TrackerErrorCode,
  VmLabErrorCode,
} from '../../../src/vmwatcher/index.js';
import { CheckErrorCode, WebhookErrorCode } from '../../../src/webhook/index.js';

/** Every const object of codes, by the prefix its codes share. */
const CODE_OBJECTS: Record<string, Record<string, string>> = {
  CONTROLPLANE_: ControlPlaneErrorCode,
  TLS_: TlsErrorCode,
  WEBHOOK_: WebhookErrorCode,
  KUBE_: KubeErrorCode,
  FSRESIZE_: FsResizeErrorCode,
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
