import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { leanNode, leanPv, leanVmi } from '../../../src/guest-csi-bridge/monitor/monitor-caches.js';

describe("guest CSI bridge: the node monitor's lean caches", () => {
  it('a Node keeps its node-id annotation, taints and condition statuses, not its images', () => {
    const node = {
      metadata: {
        name: 'w1',
        resourceVersion: '3',
        uid: 'u',
        labels: { a: 'b' },
        annotations: { 'csi.volume.kubernetes.io/nodeid': '{"d":"vm"}', other: 'x' },
      },
      spec: { taints: [{ key: 'k', effect: 'NoSchedule' }], podCIDR: '10.0.0.0/24' },
      status: {
        conditions: [{ type: 'Ready', status: 'True', message: 'kubelet is posting' }],
        images: [{ names: ['registry/x:1'], sizeBytes: 1 }],
      },
    } as KubernetesObject;
    assert.deepEqual(leanNode(node), {
      metadata: {
        name: 'w1',
        resourceVersion: '3',
        annotations: { 'csi.volume.kubernetes.io/nodeid': '{"d":"vm"}' },
      },
      spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    } as KubernetesObject);
  });

  it('a PV keeps its CSI driver and handle; a VMI its name', () => {
    const pv = {
      metadata: { name: 'pv', resourceVersion: '1' },
      spec: {
        capacity: { storage: '1Gi' },
        csi: { driver: 'd', volumeHandle: 'h', fsType: 'ext4' },
      },
    } as KubernetesObject;
    assert.deepEqual(leanPv(pv), {
      metadata: { name: 'pv', resourceVersion: '1' },
      spec: { csi: { driver: 'd', volumeHandle: 'h' } },
    } as KubernetesObject);
    assert.deepEqual(
      leanVmi({
        metadata: {
          name: 'vm',
          namespace: 'guests',
          resourceVersion: '2',
          deletionTimestamp: new Date(0),
        },
        status: { phase: 'Running' },
      } as unknown as KubernetesObject),
      {
        metadata: {
          name: 'vm',
          namespace: 'guests',
          resourceVersion: '2',
          deletionTimestamp: new Date(0),
        },
      } as unknown as KubernetesObject,
    );
  });
});
