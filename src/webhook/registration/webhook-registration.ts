import type { V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import {
  apiErrorOf,
  type KubeClientConfig,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isTransient,
  requestJson,
  resourcePath,
  retryWhen,
} from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import { decideDevRegistration } from './decide-dev-registration.js';
import { devOwnerAnswers } from './dev-owner-answers.js';
import { readDevOwner, ownerCaBundle } from './dev-registration-owner.js';
import { WebhookError } from '../webhook-error.js';

/** The API server's message for a failed call (the Status body), else the error's own text. */
function describe(error: unknown): string {
  return apiErrorOf(error)?.message || (error instanceof Error ? error.message : String(error));
}

const path = (name: string): string =>
  resourcePath({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
    name,
  });

/** The calls on ValidatingWebhookConfigurations the registration makes, as raw requests. */
interface ConfigurationApi {
  createValidatingWebhookConfiguration(call: {
    body: V1ValidatingWebhookConfiguration;
  }): Promise<V1ValidatingWebhookConfiguration>;
  readValidatingWebhookConfiguration(call: {
    name: string;
  }): Promise<V1ValidatingWebhookConfiguration>;
  replaceValidatingWebhookConfiguration(call: {
    name: string;
    body: V1ValidatingWebhookConfiguration;
  }): Promise<V1ValidatingWebhookConfiguration>;
}

function configurationApi(kubeConfig: KubeClientConfig): ConfigurationApi {
  const collection = resourcePath({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
  });
  return {
    createValidatingWebhookConfiguration: ({ body }) =>
      requestJson(kubeConfig, { method: 'POST', path: collection, body }),
    readValidatingWebhookConfiguration: ({ name }) =>
      requestJson(kubeConfig, { method: 'GET', path: path(name) }),
    replaceValidatingWebhookConfiguration: ({ name, body }) =>
      requestJson(kubeConfig, { method: 'PUT', path: path(name), body }),
  };
}

/** Creates the ValidatingWebhookConfiguration, or replaces the one with the same name whoever made it (tests, tools; voe serve --dev uses registerDevConfiguration). */
export async function applyValidatingWebhookConfiguration(
  kubeConfig: KubeClientConfig,
  body: V1ValidatingWebhookConfiguration,
): Promise<void> {
  const api = configurationApi(kubeConfig);
  const name = body.metadata?.name ?? '';
  try {
    await api.createValidatingWebhookConfiguration({ body });
    return;
  } catch (error) {
    if (!isAlreadyExists(error)) {
      throw new WebhookError(
        'WEBHOOK_REGISTRATION_FAILED',
        `Cannot create ValidatingWebhookConfiguration ${name}: ${describe(error)}. Check the kubeconfig and that the user may create validatingwebhookconfigurations.`,
        { cause: error },
      );
    }
  }
  try {
    const existing = await api.readValidatingWebhookConfiguration({ name });
    await api.replaceValidatingWebhookConfiguration({
      name,
      body: {
        ...body,
        metadata: { ...body.metadata, resourceVersion: existing.metadata?.resourceVersion },
      },
    });
  } catch (error) {
    throw new WebhookError(
      'WEBHOOK_REGISTRATION_FAILED',
      `Cannot replace ValidatingWebhookConfiguration ${name}: ${describe(error)}.`,
      { cause: error },
    );
  }
}

/**
 * Registers voe serve --dev's configuration `body` (marked with its DevOwner annotation). When one
 * of that name exists, decideDevRegistration decides: a configuration not marked as voe serve --dev's
 * (WEBHOOK_CONFIGURATION_NOT_OURS) or one whose instance still answers (WEBHOOK_CONFIGURATION_IN_USE)
 * is left untouched and refused; one left by an instance that no longer answers is deleted (uid and
 * resourceVersion preconditions: exactly what was judged) with a warning, and ours created anew, so
 * our object has its own uid. Resolves with that uid (stop deletes only it).
 * A transient failure of a call (no answer, 429, a 5xx) is retried. A create may have been stored
 * although its answer was lost (the API server answers 504 to a write that outlived its request
 * timeout, a connection cut after the write): the object of that name marked with this instance's
 * own id is ours, and its uid is returned, rather than left behind pointing at an instance that
 * then gives up. Aborting `signal` ends the retries at once (the same check for a stored create
 * applies).
 */
export async function registerDevConfiguration(
  kubeConfig: KubeClientConfig,
  body: V1ValidatingWebhookConfiguration,
  options: { logger?: Logger; minRetryMs?: number; signal?: AbortSignal } = {},
): Promise<{ uid: string }> {
  const registration = devRegistration(kubeConfig, body, options);
  // Another instance may create or delete it between our calls: decide again, a few times.
  for (let attempt = 1; ; attempt++) {
    const created = await createDevConfiguration(registration);
    if (created) return created;
    if (attempt > 3) {
      throw new WebhookError(
        'WEBHOOK_REGISTRATION_FAILED',
        `ValidatingWebhookConfiguration ${registration.name} keeps being created and deleted by someone else while voe serve --dev registers; pass another --webhook-configuration-name.`,
      );
    }
    const existing = await readExistingConfiguration(registration);
    if (existing === undefined) continue;
    if (registration.isOurs(existing)) return registration.adopt(existing);
    await removeStaleConfiguration(registration, existing);
  }
}

/** What each step of registerDevConfiguration shares. */
interface DevRegistration {
  kubeConfig: KubeClientConfig;
  api: ConfigurationApi;
  name: string;
  body: V1ValidatingWebhookConfiguration;
  logger: Logger | undefined;
  signal: AbortSignal | undefined;
  /** The call, a transient failure retried. */
  retrying<T>(call: () => Promise<T>): Promise<T>;
  /** Ours: an object of that name carrying this instance's own id (a create of ours that was stored). */
  isOurs(existing: V1ValidatingWebhookConfiguration): boolean;
  /** Takes a stored create of ours as the registration. */
  adopt(existing: V1ValidatingWebhookConfiguration): { uid: string };
}

function devRegistration(
  kubeConfig: KubeClientConfig,
  body: V1ValidatingWebhookConfiguration,
  options: { logger?: Logger; minRetryMs?: number; signal?: AbortSignal },
): DevRegistration {
  const name = body.metadata?.name ?? '';
  const self = readDevOwner(body);
  const ownId = typeof self === 'object' ? self.id : undefined;
  return {
    kubeConfig,
    api: configurationApi(kubeConfig),
    name,
    body,
    logger: options.logger,
    signal: options.signal,
    retrying: (call) =>
      retryWhen(isTransient, call, {
        retries: 6,
        minTimeoutMs: options.minRetryMs ?? 250,
        maxTimeoutMs: 4_000,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    isOurs: (existing) => {
      const owner = readDevOwner(existing);
      return ownId !== undefined && typeof owner === 'object' && owner.id === ownId;
    },
    adopt: (existing) => {
      options.logger?.info(
        { configuration: name, uid: existing.metadata?.uid },
        `ValidatingWebhookConfiguration ${name} was created by this instance although the API server's answer was lost; using it`,
      );
      return { uid: existing.metadata?.uid ?? '' };
    },
  };
}

/**
 * Creates the configuration: its uid, or undefined when one of that name exists. A create given up
 * on a transient failure (or stopped meanwhile) may still have been stored: ours is then adopted.
 */
async function createDevConfiguration(
  registration: DevRegistration,
): Promise<{ uid: string } | undefined> {
  const { api, name, body, signal } = registration;
  try {
    const created = await registration.retrying(() =>
      api.createValidatingWebhookConfiguration({ body }),
    );
    return { uid: created.metadata?.uid ?? '' };
  } catch (error) {
    if (isAlreadyExists(error)) return undefined;
    // Given up on a transient failure (or stopped meanwhile): the create may still have been stored.
    const unsure = isTransient(error) || signal?.aborted === true;
    const stored = unsure
      ? await api.readValidatingWebhookConfiguration({ name }).catch(() => undefined)
      : undefined;
    if (stored && registration.isOurs(stored)) return registration.adopt(stored);
    throw new WebhookError(
      'WEBHOOK_REGISTRATION_FAILED',
      `Cannot create ValidatingWebhookConfiguration ${name}: ${describe(error)}. Check the kubeconfig and that the user may create validatingwebhookconfigurations.` +
        (unsure
          ? ` It may have been stored all the same: if kubectl get validatingwebhookconfiguration ${name} shows it, delete it (kubectl delete validatingwebhookconfiguration ${name}).`
          : ''),
      { cause: error },
    );
  }
}

/** The configuration of that name; undefined when it is gone meanwhile. */
async function readExistingConfiguration(
  registration: DevRegistration,
): Promise<V1ValidatingWebhookConfiguration | undefined> {
  const { api, name } = registration;
  try {
    return await registration.retrying(() => api.readValidatingWebhookConfiguration({ name }));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw new WebhookError(
      'WEBHOOK_REGISTRATION_FAILED',
      `Cannot read the existing ValidatingWebhookConfiguration ${name}: ${describe(error)}.`,
      { cause: error },
    );
  }
}

/**
 * Another's configuration of that name: refused (decideDevRegistration), or, left by an instance
 * that no longer answers, deleted exactly as judged (uid and resourceVersion) with a warning.
 */
async function removeStaleConfiguration(
  registration: DevRegistration,
  existing: V1ValidatingWebhookConfiguration,
): Promise<void> {
  const { name } = registration;
  const owner = readDevOwner(existing);
  const answers =
    typeof owner === 'object'
      ? await devOwnerAnswers(owner, ownerCaBundle(existing, owner.url))
      : false;
  const decision = decideDevRegistration(name, owner, answers);
  if (decision.action === 'refuse') throw decision.error;
  registration.logger?.warn({ configuration: name, previous: owner }, decision.warning);
  // Exactly what was judged (uid and resourceVersion); gone or changed meanwhile: decide again.
  const preconditions = {
    uid: existing.metadata?.uid ?? '',
    ...(existing.metadata?.resourceVersion
      ? { resourceVersion: existing.metadata.resourceVersion }
      : {}),
  };
  await deleteValidatingWebhookConfiguration(registration.kubeConfig, name, preconditions).catch(
    (error: unknown) => {
      throw new WebhookError(
        'WEBHOOK_REGISTRATION_FAILED',
        `Cannot delete the stale ValidatingWebhookConfiguration ${name}: ${describe(error instanceof Error && error.cause !== undefined ? error.cause : error)}.`,
        { cause: error },
      );
    },
  );
}

export type DeleteOutcome = 'deleted' | 'gone' | 'not-ours';

/**
 * Deletes the ValidatingWebhookConfiguration `name`. With `uid` (and `resourceVersion`), only that
 * object as it was (DeleteOptions preconditions): if the name now holds another object or a changed
 * one (409 Conflict) it is left alone, 'not-ours'.
 * Already gone (404) is 'gone'. A transient failure (no answer, 429, 5xx) is retried `retries`
 * times (default 4, jittered exponential backoff from 250 ms); other failures, or the last
 * transient one, throw WEBHOOK_REGISTRATION_FAILED.
 */
export async function deleteValidatingWebhookConfiguration(
  kubeConfig: KubeClientConfig,
  name: string,
  options: { uid?: string; resourceVersion?: string; retries?: number; minRetryMs?: number } = {},
): Promise<DeleteOutcome> {
  const body = {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    ...(options.uid
      ? {
          preconditions: {
            uid: options.uid,
            ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}),
          },
        }
      : {}),
  };
  try {
    // A configuration left behind refuses every write it matches (failurePolicy Fail): one
    // transient failure (a reset, 429, a 5xx) is retried a few times before giving up.
    await retryWhen(
      isTransient,
      () =>
        requestJson(kubeConfig, { method: 'DELETE', path: path(name), timeoutMs: 10_000, body }),
      { retries: options.retries ?? 4, minTimeoutMs: options.minRetryMs ?? 250 },
    );
    return 'deleted';
  } catch (error) {
    if (isNotFound(error)) return 'gone';
    if (options.uid && isConflict(error)) return 'not-ours';
    throw new WebhookError(
      'WEBHOOK_REGISTRATION_FAILED',
      `Cannot delete ValidatingWebhookConfiguration ${name}: ${describe(error)}. Delete it by hand (kubectl delete validatingwebhookconfiguration ${name}) or API writes it matches fail.`,
      { cause: error },
    );
  }
}
