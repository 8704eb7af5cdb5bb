import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assert } from 'chai';
import { parse } from 'yaml';
import { GUEST_TOOLS } from '../../../../src/controlplane/guest-tools/index.js';

/** The guest chart's values, from dist/test/unit/controlplane/guest-tools. */
const GUEST_VALUES = fileURLToPath(
  new URL('../../../../../charts/voe-csi/values.yaml', import.meta.url),
);

interface GuestChartValues {
  sidecars: Record<string, { image?: string }>;
}

/** The release tag of each sidecar image the guest chart ships, by the sidecar's binary name. */
function chartSidecarTags(): Map<string, string> {
  const values = parse(readFileSync(GUEST_VALUES, 'utf8')) as GuestChartValues;
  const tags = new Map<string, string>();
  for (const sidecar of Object.values(values.sidecars)) {
    const match = /\/([^/:]+):(v[^@]+)$/.exec(sidecar.image ?? '');
    if (match) tags.set(match[1]!, match[2]!);
  }
  return tags;
}

describe('guest tools recipe', () => {
  const tags = chartSidecarTags();
  for (const tool of GUEST_TOOLS.filter(
    (t) => t.module !== undefined && t.binary !== 'snapshot-controller',
  )) {
    it(`${tool.binary} is built at the release charts/voe-csi ships`, () => {
      assert.equal(tool.version, tags.get(tool.binary));
    });
  }
  it("snapshot-controller (the guest cluster's, not the chart's) is built at csi-snapshotter's release", () => {
    const controller = GUEST_TOOLS.find((t) => t.binary === 'snapshot-controller');
    assert.equal(controller?.version, tags.get('csi-snapshotter'));
    assert.equal(
      controller?.module,
      GUEST_TOOLS.find((t) => t.binary === 'csi-snapshotter')?.module,
    );
  });
});
