import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  isShareablePvc,
  networkFilesystemFor,
  publishedNodesOf,
  SHARE_NODES_ANNOTATION,
  shareMount,
  shareMountFromContext,
  sharePublishContext,
  sharePublishPatch,
  shareReady,
  shareUnpublishPatch,
  type SharePatch,
} from '../../../src/guest-csi-bridge/controller/plan-share.js';
import type {
  HostNetworkFilesystem,
  HostPvc,
} from '../../../src/guest-csi-bridge/host/host-objects.js';

const PV = 'pvc-0a1b2c3d';

const share = (
  desiredState: string,
  nodes: string | undefined,
  status: HostNetworkFilesystem['status'] = {},
): HostNetworkFilesystem => ({
  metadata: {
    name: PV,
    resourceVersion: '7',
    ...(nodes === undefined ? {} : { annotations: { [SHARE_NODES_ANNOTATION]: nodes } }),
  },
  spec: { networkFSName: PV, desiredState, provisioner: 'Longhorn' },
  status,
});

const patch = (nodes: string | null, desiredState?: 'Enabled' | 'Disabled'): SharePatch => ({
  metadata: { resourceVersion: '7', annotations: { [SHARE_NODES_ANNOTATION]: nodes } },
  ...(desiredState ? { spec: { desiredState } } : {}),
});

describe('plan-share: the NetworkFilesystem of a shared volume', () => {
  it('networkFilesystemFor: disabled, named after the Longhorn volume, as Harvester makes it', () => {
    assert.deepStrictEqual(networkFilesystemFor(PV), {
      metadata: { name: PV, namespace: 'harvester-system' },
      spec: { networkFSName: PV, desiredState: 'Disabled', provisioner: 'Longhorn' },
    });
  });

  const publishes: Array<[string, HostNetworkFilesystem, string, SharePatch | undefined]> = [
    ['first node: listed and enabled', share('Disabled', undefined), 'a', patch('a', 'Enabled')],
    ['second node: added, sorted', share('Enabled', 'b'), 'a', patch('a,b')],
    ['node already listed on an enabled share: nothing', share('Enabled', 'a,b'), 'a', undefined],
    ['listed but disabled: enabled again', share('Disabled', 'a'), 'a', patch('a', 'Enabled')],
    ["made by Harvester's driver (no list): listed", share('Enabled', undefined), 'a', patch('a')],
  ];
  for (const [name, current, node, expected] of publishes)
    it(`sharePublishPatch: ${name}`, () => {
      assert.deepStrictEqual(sharePublishPatch(current, node), expected);
    });

  const unpublishes: Array<[string, HostNetworkFilesystem, string, SharePatch | undefined]> = [
    ['one of two nodes: taken off, still enabled', share('Enabled', 'a,b'), 'a', patch('b')],
    ['the last node: disabled', share('Enabled', 'a'), 'a', patch(null, 'Disabled')],
    ['a node not listed: nothing', share('Enabled', 'b'), 'a', undefined],
    ['every node (empty node id): disabled', share('Enabled', 'a,b'), '', patch(null, 'Disabled')],
    [
      'every node of a disabled share without list: nothing',
      share('Disabled', undefined),
      '',
      undefined,
    ],
  ];
  for (const [name, current, node, expected] of unpublishes)
    it(`shareUnpublishPatch: ${name}`, () => {
      assert.deepStrictEqual(shareUnpublishPatch(current, node), expected);
    });

  it('publishedNodesOf reads the annotation', () => {
    assert.deepStrictEqual(publishedNodesOf(share('Enabled', 'a,b')), ['a', 'b']);
    assert.deepStrictEqual(publishedNodesOf(undefined), []);
  });

  const readiness: Array<[string, HostNetworkFilesystem['status'], boolean]> = [
    ['Ready with an endpoint', { status: 'Ready', endpoint: '10.53.0.9', state: 'Enabled' }, true],
    ['Ready without endpoint', { status: 'Ready', endpoint: '' }, false],
    ['NotReady (enabling)', { status: 'NotReady', endpoint: '', state: 'Enabling' }, false],
    ['no status yet', {}, false],
  ];
  for (const [name, status, ready] of readiness)
    it(`shareReady: ${name}`, () => {
      assert.strictEqual(shareReady(share('Enabled', 'a', status)), ready);
    });

  it("shareMount: the export of the volume, NFSv4 unless the share recommends options (Harvester's nodeStageRWXVolume)", () => {
    const ready = { status: 'Ready', endpoint: '10.53.0.9' };
    assert.deepStrictEqual(shareMount(share('Enabled', 'a', ready), PV), {
      source: `10.53.0.9:/${PV}`,
      options: ['vers=4'],
    });
    assert.deepStrictEqual(
      shareMount(share('Enabled', 'a', { ...ready, mountOpts: 'vers=4.1,noresvport' }), PV),
      { source: `10.53.0.9:/${PV}`, options: ['vers=4.1', 'noresvport'] },
    );
  });

  it('sharePublishContext and shareMountFromContext carry the mount from publish to stage', () => {
    const ready = share('Enabled', 'a', { status: 'Ready', endpoint: '10.53.0.9' });
    const context = sharePublishContext(ready, PV);
    assert.deepStrictEqual(context, {
      shareSource: `10.53.0.9:/${PV}`,
      shareMountOptions: 'vers=4',
    });
    assert.deepStrictEqual(shareMountFromContext(context), shareMount(ready, PV));
    assert.isUndefined(shareMountFromContext({}));
    assert.deepStrictEqual(shareMountFromContext({ shareSource: 'h:/v' })?.options, ['vers=4']);
  });

  const pvcs: Array<[string, HostPvc | undefined, boolean]> = [
    ['bound Filesystem RWX', pvc('Filesystem', ['ReadWriteMany'], PV), true],
    ['Block', pvc('Block', ['ReadWriteMany'], PV), false],
    ['not bound yet', pvc('Filesystem', ['ReadWriteMany'], undefined), false],
    ['ReadWriteOnce', pvc('Filesystem', ['ReadWriteOnce'], PV), false],
    ['missing', undefined, false],
  ];
  for (const [name, claim, shareable] of pvcs)
    it(`isShareablePvc: ${name}`, () => {
      assert.strictEqual(isShareablePvc(claim), shareable);
    });
});

function pvc(volumeMode: string, accessModes: string[], volumeName: string | undefined): HostPvc {
  return { spec: { volumeMode, accessModes, ...(volumeName ? { volumeName } : {}) } };
}
