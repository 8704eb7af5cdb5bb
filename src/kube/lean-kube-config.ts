import { readFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import {
  authenticatorFor,
  loadAuthenticator,
  type AuthenticatorName,
  type KubeAuthenticator,
} from './kube-authenticator.js';
import type { KubeClientConfig } from './kube-client-config.js';

/** A kubeconfig's entries, with the field names of client-node's KubeConfig.loadFromOptions. */
export interface KubeConfigEntries {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string;
}

/** client-node's findObject (config.js): the entry named `name`, its inner object when it has one. */
function findNamed<T>(list: readonly T[], name: string, key: string): T | null {
  for (const entry of list as Array<Record<string, unknown>>) {
    if (entry['name'] !== name) continue;
    const inner = entry[key] as Record<string, unknown> | undefined;
    if (!inner) return entry as T;
    inner['name'] = name;
    return inner as T;
  }
  return null;
}

/** A CA, certificate or key: the file's bytes, else the base64 data (client-node's bufferFromFileOrString). */
function fileOrData(
  file: string | undefined | null,
  data: string | undefined | null,
): Buffer | null {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return null;
}

/**
 * A loaded kubeconfig that applies its credentials to a request as client-node's KubeConfig
 * (config.js applyToHTTPSOptions) does, without loading client-node's generated models (its
 * config.js imports them all, about 70 MiB): the CA, client certificate and key (files read at
 * each request), tls-server-name, insecure-skip-tls-verify, `as`, basic auth, a token, and the
 * authenticators for exec plugins, token files (the in-cluster ServiceAccount token, read again
 * when older than 60 s), Azure, GCP and OIDC, each loaded only when a user needs it.
 * No agent is made: voe's requests share Node's global agent (kube-request.ts), and `proxy-url`
 * is not supported, as before.
 */
export class LeanKubeConfig implements KubeClientConfig {
  readonly clusters: Cluster[];
  readonly users: User[];
  readonly contexts: Context[];
  readonly currentContext: string;
  private readonly authenticators = new Map<AuthenticatorName, Promise<KubeAuthenticator>>();

  constructor(entries: KubeConfigEntries) {
    this.clusters = entries.clusters;
    this.users = entries.users;
    this.contexts = entries.contexts;
    this.currentContext = entries.currentContext;
  }

  /** What client-node's KubeConfig.loadFromOptions takes to hold the same kubeconfig. */
  entries(): KubeConfigEntries {
    return {
      clusters: this.clusters,
      users: this.users,
      contexts: this.contexts,
      currentContext: this.currentContext,
    };
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  getContextObject(name: string): Context | null {
    return findNamed(this.contexts, name, 'context');
  }

  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    return context ? findNamed(this.clusters, context.cluster, 'cluster') : null;
  }

  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    return context ? findNamed(this.users, context.user, 'user') : null;
  }

  async applyToHTTPSOptions(options: RequestOptions): Promise<void> {
    const user = this.getCurrentUser();
    const cluster = this.getCurrentCluster();
    if (user) {
      applyTls(options, cluster, user);
      await this.applyAuthorization(options, user);
      if (user.username) options.auth = `${user.username}:${user.password}`;
    }
    refuseUnusableServer(cluster);
  }

  /** client-node's applyAuthorizationHeader: the user's authenticator, then its token. */
  private async applyAuthorization(options: RequestOptions, user: User): Promise<void> {
    const headers = (options.headers ??= {}) as Record<string, string>;
    const name = authenticatorFor(user);
    if (name) {
      let authenticator = this.authenticators.get(name);
      if (!authenticator) {
        authenticator = loadAuthenticator(name);
        this.authenticators.set(name, authenticator);
      }
      await (await authenticator).applyAuthentication(user, options);
    }
    if (user.token) headers['Authorization'] = `Bearer ${user.token}`;
  }
}

/** client-node's applyHTTPSOptions: TLS settings of the cluster, certificate and key of the user. */
function applyTls(options: RequestOptions, cluster: Cluster | null, user: User): void {
  if (cluster?.skipTLSVerify) options.rejectUnauthorized = false;
  if (cluster?.tlsServerName) options.servername = cluster.tlsServerName;
  const ca = cluster ? fileOrData(cluster.caFile, cluster.caData) : null;
  if (ca) options.ca = ca;
  const cert = fileOrData(user.certFile, user.certData);
  if (cert) options.cert = cert;
  const key = fileOrData(user.keyFile, user.keyData);
  if (key) options.key = key;
  if (user.impersonateUser != null) {
    const headers = (options.headers ??= {}) as Record<string, string>;
    headers['Impersonate-User'] = user.impersonateUser;
  }
}

/**
 * What client-node's createAgent refuses (its agent is not used, its refusals are kept): a plain
 * HTTP server without insecure-skip-tls-verify, and a proxy-url for a server that is neither
 * http nor https.
 */
function refuseUnusableServer(cluster: Cluster | null): void {
  const server = cluster?.server ?? '';
  if (cluster?.proxyUrl) {
    if (!cluster.proxyUrl.startsWith('socks') && !server.startsWith('http'))
      throw new Error('Unsupported proxy type');
    return;
  }
  if (server.startsWith('http:') && !cluster?.skipTLSVerify)
    throw new Error('HTTP protocol is not allowed when skipTLSVerify is not set or false');
}
