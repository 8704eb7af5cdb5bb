import type { KubeClientConfig } from './kube-client-config.js';
import { requestJson } from './kube-request.js';
import { resourcePath } from './resource-ref.js';

/** Port: where the recorder writes events.k8s.io/v1 Events. One production adapter: `eventSink`. */
export interface EventSink {
  create(namespace: string, event: Record<string, unknown>): Promise<void>;
  /** Merge patch `{series: {count, lastObservedTime}}` on an existing Event. */
  patchSeries(
    namespace: string,
    name: string,
    series: { count: number; lastObservedTime: string },
  ): Promise<void>;
}

export function eventSink(kubeConfig: KubeClientConfig, timeoutMs = 10_000): EventSink {
  const ref = (namespace: string, name?: string) =>
    resourcePath({ group: 'events.k8s.io', version: 'v1', plural: 'events', namespace, name });
  return {
    async create(namespace, event) {
      await requestJson(kubeConfig, {
        method: 'POST',
        path: ref(namespace),
        body: event,
        timeoutMs,
      });
    },
    async patchSeries(namespace, name, series) {
      await requestJson(kubeConfig, {
        method: 'PATCH',
        path: ref(namespace, name),
        body: { series },
        contentType: 'application/merge-patch+json',
        timeoutMs,
      });
    },
  };
}
