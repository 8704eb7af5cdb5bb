import type { V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';

/**
 * The annotation `voe serve --dev` marks its ValidatingWebhookConfiguration with: which instance
 * registered it (JSON of DevOwner). A configuration without it was not registered by voe serve --dev.
 */
export const DEV_OWNER_ANNOTATION = 'voe.harvesterhci.io/serve-dev';

/** One `voe serve --dev` instance. */
export interface DevOwner {
  /** os.hostname() of the machine it runs on. */
  host: string;
  pid: number;
  /** Random per start, so a reused pid is a different instance. */
  id: string;
  /** https://host:port its webhooks (and /livez) answer on. */
  url: string;
}

export function devOwnerAnnotations(owner: DevOwner): Record<string, string> {
  return {
    [DEV_OWNER_ANNOTATION]: JSON.stringify({
      host: owner.host,
      pid: owner.pid,
      id: owner.id,
      url: owner.url,
    }),
  };
}

/**
 * The instance a configuration was registered by: undefined when it carries no mark (not a voe
 * serve --dev registration); 'unreadable' when the mark is there but not a DevOwner (edited by hand).
 */
export function readDevOwner(
  configuration: V1ValidatingWebhookConfiguration,
): DevOwner | 'unreadable' | undefined {
  const value = configuration.metadata?.annotations?.[DEV_OWNER_ANNOTATION];
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'unreadable';
  }
  if (parsed === null || typeof parsed !== 'object') return 'unreadable';
  const { host, pid, id, url } = parsed as Record<string, unknown>;
  if (
    typeof host !== 'string' ||
    typeof pid !== 'number' ||
    typeof id !== 'string' ||
    typeof url !== 'string' ||
    !url.startsWith('https://')
  )
    return 'unreadable';
  return { host, pid, id, url };
}

/** "voe serve --dev (pid 123 on host h, https://127.0.0.1:9443, id 3f2a...)". */
export function describeDevOwner(owner: DevOwner): string {
  return `voe serve --dev (pid ${owner.pid} on host ${owner.host}, ${owner.url}, id ${owner.id})`;
}

/** The caBundle (base64 PEM) of the configuration's first webhook called under `url`: what the owner's certificate is signed by. */
export function ownerCaBundle(
  configuration: V1ValidatingWebhookConfiguration,
  url: string,
): string | undefined {
  return configuration.webhooks?.find(
    (w) => w.clientConfig.url?.startsWith(`${url}/`) && w.clientConfig.caBundle,
  )?.clientConfig.caBundle;
}
