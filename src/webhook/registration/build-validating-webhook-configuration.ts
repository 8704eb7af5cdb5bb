import { isDnsSubdomain } from '../../kube/index.js';
import type {
  V1LabelSelector,
  V1ValidatingWebhook,
  V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { EXPAND_VALIDATION_SETTING_NAME } from '../../settings/index.js';
import { VOLUME_CLAIM_TEMPLATES_ANNOTATION } from '../../model/index.js';
import { WEBHOOK_ENDPOINTS, type WebhookEndpointKey } from '../webhook-endpoints.js';
import { WebhookError } from '../webhook-error.js';

export interface WebhookConfigurationOptions {
  /** metadata.name of the ValidatingWebhookConfiguration. */
  name: string;
  /** Local/dev: the API server calls `<urlBase><path>`, e.g. https://127.0.0.1:9443. */
  urlBase?: string;
  /** In cluster: the API server calls the Service. */
  service?: { namespace: string; name: string; port?: number };
  /** CA that signed the serving certificate: PEM text (encoded here) or already base64. Omit with cert-manager CA injection. */
  caBundle?: string;
  /** Which webhooks to include; default all three. */
  webhooks?: WebhookEndpointKey[];
  timeoutSeconds?: number;
  failurePolicy?: 'Fail' | 'Ignore';
  /** The Setting the setting webhook validates (the validators' settingName); default csi-online-expand-validation. */
  settingName?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Namespaces whose PVCs and VMs the webhooks never see, besides kube-system and the Service's namespace. */
  excludedNamespaces?: string[];
}

/** A namespace labelled `storage.voe.dev/webhook: disabled` is never sent to voe's webhooks. */
export const WEBHOOK_OPT_OUT_LABEL = 'storage.voe.dev/webhook';
export const WEBHOOK_OPT_OUT_VALUE = 'disabled';

/**
 * Which namespaces the namespaced webhooks (PVCs, VMs) see: not kube-system, not the webhook's own
 * namespace (so neither the cluster's nor voe's own objects wait on voe), not those in `excluded`,
 * and not those labelled to opt out. The API server ignores it for cluster-scoped objects (Settings).
 */
export function webhookNamespaceSelector(
  serviceNamespace: string | undefined,
  excluded: string[] = [],
): V1LabelSelector {
  const names = [
    ...new Set(['kube-system', ...(serviceNamespace ? [serviceNamespace] : []), ...excluded]),
  ];
  return {
    matchExpressions: [
      { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: names },
      { key: WEBHOOK_OPT_OUT_LABEL, operator: 'NotIn', values: [WEBHOOK_OPT_OUT_VALUE] },
    ],
  };
}

const STORAGE = 'object.spec.resources.requests.storage';
const OLD_STORAGE = 'oldObject.spec.resources.requests.storage';

/**
 * CEL for "the storage request grows" (storageGrows: a smaller request, which the API server lets
 * through only above status.capacity to recover from a failed expansion, asks for no more than
 * is pending already and is not judged, so it is not sent). matchConditions that error make a Fail
 * webhook refuse the request, so every field access is guarded: has() on each level (object is
 * dynamically typed, a missing key would be an error), isQuantity() before quantity(). When the
 * old size cannot be read the request goes to the webhook, which decides (never silently skipped).
 */
export const PVC_STORAGE_REQUEST_GROWS = [
  `has(object.spec.resources) && has(object.spec.resources.requests) && has(${STORAGE}) &&`,
  ` (!has(oldObject.spec.resources) || !has(oldObject.spec.resources.requests) || !has(${OLD_STORAGE})`,
  ` || !isQuantity(string(${STORAGE})) || !isQuantity(string(${OLD_STORAGE}))`,
  ` || quantity(string(${STORAGE})).isGreaterThan(quantity(string(${OLD_STORAGE}))))`,
].join('\n');

function annotationOrEmpty(variable: 'object' | 'oldObject'): string {
  const key = `'${VOLUME_CLAIM_TEMPLATES_ANNOTATION}'`;
  return `(has(${variable}.metadata.annotations) && ${key} in ${variable}.metadata.annotations ? ${variable}.metadata.annotations[${key}] : '')`;
}

/** CEL for "the VM's volumeClaimTemplates annotation changed" (added, removed or edited). */
export const VM_VOLUME_CLAIM_TEMPLATES_CHANGED = `${annotationOrEmpty('object')} != ${annotationOrEmpty('oldObject')}`;

/** CEL for "this is the Setting named `name`" (the one listing validated CSI drivers). */
export function settingNamed(name: string): string {
  // An object name as the API server accepts it (DNS-1123 subdomain) can be quoted in CEL as is.
  if (!isDnsSubdomain(name)) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      `The Setting name ${JSON.stringify(name.slice(0, 300))} is not a valid object name (lower-case DNS subdomain).`,
    );
  }
  return `has(object.metadata.name) && object.metadata.name == '${name}'`;
}

/** CEL for "this is the csi-online-expand-validation Setting" (Harvester's name). */
export const IS_ONLINE_EXPAND_SETTING = settingNamed(EXPAND_VALIDATION_SETTING_NAME);

function encodeCaBundle(caBundle: string): string {
  return caBundle.trimStart().startsWith('-----BEGIN')
    ? Buffer.from(caBundle, 'utf8').toString('base64')
    : caBundle;
}

/**
 * The ValidatingWebhookConfiguration for voe's webhooks: failurePolicy Fail, sideEffects None,
 * admissionReviewVersions [v1], and matchConditions so the API server only calls us for what can
 * change an expansion decision (a growing PVC request, a changed VM volumeClaimTemplates
 * annotation, the csi-online-expand-validation Setting or the one named by settingName). Pure.
 */
export function buildValidatingWebhookConfiguration(
  options: WebhookConfigurationOptions,
): V1ValidatingWebhookConfiguration {
  const timeoutSeconds = checkedTimeoutSeconds(options);
  const matches = webhookMatches(
    settingNamed(options.settingName ?? EXPAND_VALIDATION_SETTING_NAME),
  );
  const clientConfig = clientConfigFor(options);
  const keys = options.webhooks ?? (Object.keys(matches) as WebhookEndpointKey[]);
  const namespaceSelector = webhookNamespaceSelector(
    options.service?.namespace,
    options.excludedNamespaces,
  );
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: {
      name: options.name,
      labels: {
        'app.kubernetes.io/name': 'voe',
        'app.kubernetes.io/component': 'webhook',
        ...(options.labels ?? {}),
      },
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    webhooks: keys.map((key) => ({
      name: WEBHOOK_ENDPOINTS[key].webhookName,
      clientConfig: clientConfig(WEBHOOK_ENDPOINTS[key].path),
      ...matches[key],
      ...(key === 'setting' ? {} : { namespaceSelector }),
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: options.failurePolicy ?? 'Fail',
      matchPolicy: 'Equivalent',
      timeoutSeconds,
    })),
  };
}

/**
 * Refuses options the API server would not take (WEBHOOK_INVALID_OPTIONS): exactly one of urlBase
 * and service, an https urlBase, a timeout from 1 to 30 s. The timeout, 10 s unless told.
 */
function checkedTimeoutSeconds(options: WebhookConfigurationOptions): number {
  if ((options.urlBase === undefined) === (options.service === undefined)) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      'A webhook configuration needs exactly one of urlBase (local) or service (in cluster).',
    );
  }
  if (options.urlBase !== undefined && !options.urlBase.startsWith('https://')) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      `The API server only calls webhooks over https; got urlBase ${options.urlBase}.`,
    );
  }
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      `timeoutSeconds must be an integer from 1 to 30, got ${timeoutSeconds}.`,
    );
  }
  return timeoutSeconds;
}

/** How the API server reaches the webhook at `path`: the URL (local) or the Service, and the CA. */
function clientConfigFor(
  options: WebhookConfigurationOptions,
): (path: string) => V1ValidatingWebhook['clientConfig'] {
  const urlBase = options.urlBase?.replace(/\/+$/, '');
  const caBundle = options.caBundle ? { caBundle: encodeCaBundle(options.caBundle) } : {};
  return (path) => ({
    ...(urlBase !== undefined
      ? { url: `${urlBase}${path}` }
      : {
          service: {
            namespace: options.service!.namespace,
            name: options.service!.name,
            port: options.service!.port ?? 443,
            path,
          },
        }),
    ...caBundle,
  });
}

/** What each webhook is called for: its rule and the matchCondition that narrows it. */
function webhookMatches(
  settingCondition: string,
): Record<WebhookEndpointKey, Pick<V1ValidatingWebhook, 'rules' | 'matchConditions'>> {
  return {
    pvcResize: {
      rules: [
        {
          apiGroups: [''],
          apiVersions: ['v1'],
          operations: ['UPDATE'],
          resources: ['persistentvolumeclaims'],
          scope: 'Namespaced',
        },
      ],
      matchConditions: [{ name: 'storage-request-grows', expression: PVC_STORAGE_REQUEST_GROWS }],
    },
    vm: {
      rules: [
        {
          apiGroups: ['kubevirt.io'],
          apiVersions: ['v1'],
          operations: ['UPDATE'],
          resources: ['virtualmachines'],
          scope: 'Namespaced',
        },
      ],
      matchConditions: [
        { name: 'volume-claim-templates-changed', expression: VM_VOLUME_CLAIM_TEMPLATES_CHANGED },
      ],
    },
    setting: {
      rules: [
        {
          apiGroups: ['harvesterhci.io'],
          apiVersions: ['v1beta1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['settings'],
          scope: 'Cluster',
        },
      ],
      matchConditions: [{ name: 'online-expand-setting', expression: settingCondition }],
    },
  };
}
