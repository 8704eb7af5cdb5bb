import { describe, it } from 'mocha';
import { assert } from 'chai';
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { EventRecorder, eventSink } from '../../../src/kube/index.js';
import { useSharedControlPlane } from '../../support/shared-control-plane.js';

const { kubeConfig, namespace: ns } = await useSharedControlPlane('event-recorder');
const core = kubeConfig.makeApiClient(CoreV1Api);
const events = kubeConfig.makeApiClient(EventsV1Api);

describe('EventRecorder against a real API server', () => {
  it('writes a real events.k8s.io/v1 Event, then aggregates repeats into series.count on the same Event', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'regarded' } },
    });
    const recorder = new EventRecorder({
      sink: eventSink(kubeConfig),
      reportingController: 'voe.harvesterhci.io/test',
      reportingInstance: 'test-pod-0',
    });
    try {
      const input = {
        regarding: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: ns,
          name: 'regarded',
          uid: cm.metadata?.uid,
        },
        type: 'Warning' as const,
        reason: 'VolumeResizeFailed',
        action: 'Resize',
        note: 'not enough space in the pool',
      };
      recorder.record(input);
      await recorder.flush();
      let list = await events.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'regarding.name=regarded',
      });
      assert.strictEqual(list.items.length, 1);
      const first = list.items[0];
      assert.strictEqual(first?.reason, 'VolumeResizeFailed');
      assert.strictEqual(first?.action, 'Resize');
      assert.strictEqual(first?.type, 'Warning');
      assert.strictEqual(first?.note, 'not enough space in the pool');
      assert.strictEqual(first?.reportingController, 'voe.harvesterhci.io/test');
      assert.strictEqual(first?.reportingInstance, 'test-pod-0');
      assert.strictEqual(first?.regarding?.uid, cm.metadata?.uid);
      assert.ok(first?.eventTime, 'eventTime set');
      assert.isUndefined(first?.series);

      recorder.record(input);
      await recorder.flush();
      list = await events.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'regarding.name=regarded',
      });
      assert.strictEqual(list.items.length, 1, 'still one Event object');
      assert.strictEqual(list.items[0]?.metadata?.name, first?.metadata?.name);
      assert.strictEqual(list.items[0]?.series?.count, 2);
      assert.ok(list.items[0]?.series?.lastObservedTime);

      for (let i = 0; i < 20; i++) recorder.record(input);
      recorder.record({ ...input, type: 'Normal', reason: 'Resizing', note: 'started' });
      await recorder.flush();
      list = await events.listNamespacedEvent({
        namespace: ns,
        fieldSelector: 'regarding.name=regarded',
      });
      assert.strictEqual(list.items.length, 2, 'a different reason is a different Event');
      const series = list.items.find((e) => e.reason === 'VolumeResizeFailed');
      assert.strictEqual(series?.series?.count, 22);
    } finally {
      await recorder.stop();
    }
  });

  it('API errors are logged, never thrown at the caller', async () => {
    const recorder = new EventRecorder({
      sink: eventSink(kubeConfig),
      reportingController: 'c',
      reportingInstance: 'i',
    });
    // An invalid Event (reason is required by validation): the write fails with 422, record() does not throw.
    recorder.record({
      regarding: { kind: 'ConfigMap', namespace: 'no-such-namespace', name: 'x' },
      type: 'Normal',
      reason: 'R',
      action: 'A',
      note: 'n',
    });
    await recorder.stop();
  });
});
