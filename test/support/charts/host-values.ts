/**
 * Non-default values of the host chart that the tests render, lint and apply besides the defaults:
 * each turns on what the defaults leave off (cert-manager, monitoring), turns off what they turn on
 * (the tracker, its --enable) or moves what they fix.
 */
export const HOST_VALUE_SETS: Record<string, Record<string, unknown>> = {
  'cert-manager, monitoring, Longhorn off, a custom Setting, Ignore': {
    image: {
      repository: 'registry.example.com/voe/voe',
      digest: `sha256:${'a'.repeat(64)}`,
      pullPolicy: 'Always',
    },
    imagePullSecrets: [{ name: 'regcred' }],
    admission: {
      setting: 'my-expand-validation',
      longhorn: 'off',
      longhornV2Expansion: 'deny',
    },
    webhook: {
      replicas: 3,
      logLevel: 'debug',
      failurePolicy: 'Ignore',
      timeoutSeconds: 5,
      shutdownDelaySeconds: 5,
      podDisruptionBudget: { enabled: true, minAvailable: 2 },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
      podAnnotations: { 'example.com/team': 'storage' },
      podLabels: { team: 'storage' },
    },
    tracker: {
      replicas: 3,
      enable: false,
      stuckAfter: '1h30m',
      guestProbe: 'pods-exec',
      guestProbeNamespaces: ['storage-system'],
      guestFilesystemGrowth: { enable: true },
      logLevel: 'debug',
      nodeOptions: '--max-old-space-size=768 --max-semi-space-size=2',
      resources: { requests: { cpu: '100m', memory: '640Mi' }, limits: { memory: '1Gi' } },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      podLabels: { team: 'storage' },
    },
    certificates: { mode: 'cert-manager' },
    metrics: {
      serviceMonitor: { enabled: true, interval: '15s', labels: { release: 'prometheus' } },
      prometheusRule: { enabled: true, labels: { release: 'prometheus' } },
    },
  },
  "cert-manager with a ClusterIssuer, one replica, no tracker, Node's own heap sizes": {
    webhook: { replicas: 1, nodeOptions: '' },
    tracker: { enabled: false },
    certificates: {
      mode: 'cert-manager',
      certManager: {
        issuerRef: { kind: 'ClusterIssuer', name: 'my-ca', group: 'cert-manager.io' },
        duration: '2160h',
        renewBefore: '360h',
      },
    },
  },
  'self-managed, monitoring, KubeVirt and Longhorn elsewhere, tracker --enable': {
    clusterDomain: 'example.internal',
    webhook: { excludedNamespaces: ['vm-templates'], priorityClassName: '' },
    tracker: { enable: true },
    admission: {
      kubevirt: 'kubevirt/kubevirt',
      longhorn: 'on',
      longhornNamespace: 'storage-system',
      longhornV2Expansion: 'allow',
    },
    certificates: {
      selfManaged: {
        caValidityDays: 1825,
        certValidityDays: 90,
        renewBeforeDays: 20,
        schedule: '0 */6 * * *',
      },
    },
    metrics: {
      serviceMonitor: { enabled: 'auto' },
      prometheusRule: {
        enabled: true,
        alerts: { stuckExpansions: false, webhookCallsFailing: false },
        stuckExpansionFor: '1h',
      },
    },
  },
};

/** Namespaces the value sets (and the defaults) place objects in. */
export const HOST_NAMESPACES = [
  'voe-system',
  'harvester-system',
  'longhorn-system',
  'kubevirt',
  'storage-system',
];
