import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { EventRecorder, eventSink } from '../../../src/kube/index.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane({ crds: false });
const core = cp.kubeConfig.makeApiClient(CoreV1Api);
const events = cp.kubeConfig.makeApiClient(EventsV1Api);

test('writes a real events.k8s.io/v1 Event, then aggregates repeats into series.count on the same Event', async () => {
  const cm = await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'regarded' } },
  });
  const recorder = new EventRecorder({
    sink: eventSink(cp.kubeConfig),
    reportingController: 'voe.harvesterhci.io/test',
    reportingInstance: 'test-pod-0',
  });
  try {
    const input = {
      regarding: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
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
      namespace: 'default',
      fieldSelector: 'regarding.name=regarded',
    });
    assert.equal(list.items.length, 1);
    const first = list.items[0];
    assert.equal(first?.reason, 'VolumeResizeFailed');
    assert.equal(first?.action, 'Resize');
    assert.equal(first?.type, 'Warning');
    assert.equal(first?.note, 'not enough space in the pool');
    assert.equal(first?.reportingController, 'voe.harvesterhci.io/test');
    assert.equal(first?.reportingInstance, 'test-pod-0');
    assert.equal(first?.regarding?.uid, cm.metadata?.uid);
    assert.ok(first?.eventTime, 'eventTime set');
    assert.equal(first?.series, undefined);

    recorder.record(input);
    await recorder.flush();
    list = await events.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'regarding.name=regarded',
    });
    assert.equal(list.items.length, 1, 'still one Event object');
    assert.equal(list.items[0]?.metadata?.name, first?.metadata?.name);
    assert.equal(list.items[0]?.series?.count, 2);
    assert.ok(list.items[0]?.series?.lastObservedTime);

    for (let i = 0; i < 20; i++) recorder.record(input);
    recorder.record({ ...input, type: 'Normal', reason: 'Resizing', note: 'started' });
    await recorder.flush();
    list = await events.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'regarding.name=regarded',
    });
    assert.equal(list.items.length, 2, 'a different reason is a different Event');
    const series = list.items.find((e) => e.reason === 'VolumeResizeFailed');
    assert.equal(series?.series?.count, 22);
  } finally {
    await recorder.stop();
  }
});

test('API errors are logged, never thrown at the caller', async () => {
  const recorder = new EventRecorder({
    sink: eventSink(cp.kubeConfig),
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
