import type { RequestOptions } from 'node:https';
import type { User } from '@kubernetes/client-node';

/** One of client-node's authenticators: sets a request's credentials for a kubeconfig user. */
export interface KubeAuthenticator {
  applyAuthentication(user: User, options: RequestOptions): Promise<void>;
}

export type AuthenticatorName = 'azure' | 'gcp' | 'exec' | 'file' | 'oidc';

/**
 * The authenticator client-node's KubeConfig picks for `user` (config.js
 * applyAuthorizationHeader: the first of its list whose isAuthProvider accepts the user, in the
 * list's order: AzureAuth, GoogleCloudPlatformAuth, ExecAuth, FileAuth, OpenIDConnectAuth); none
 * for a user with neither `exec` nor an `auth-provider` (a token, client certificates). Pure.
 */
export function authenticatorFor(user: User): AuthenticatorName | undefined {
  const provider = user.authProvider as
    { name?: unknown; config?: { exec?: unknown; tokenFile?: unknown } } | null | undefined;
  if (provider && provider.name === 'azure') return 'azure';
  if (provider && provider.name === 'gcp') return 'gcp';
  if (user.exec) return 'exec';
  if (provider && (provider.name === 'exec' || Boolean(provider.config?.exec))) return 'exec';
  if (provider && provider.config && provider.config.tokenFile) return 'file';
  if (provider && provider.name === 'oidc') return 'oidc';
  return undefined;
}

/**
 * A new instance of client-node's authenticator `name`, loaded from its own module only (none of
 * them imports client-node's generated models); each keeps its cache (an exec plugin's
 * credential, a token file read within the last 60 s), so a kubeconfig keeps one of each.
 */
export async function loadAuthenticator(name: AuthenticatorName): Promise<KubeAuthenticator> {
  switch (name) {
    case 'azure':
      return new (await import('@kubernetes/client-node/dist/azure_auth.js')).AzureAuth();
    case 'gcp':
      return new (
        await import('@kubernetes/client-node/dist/gcp_auth.js')
      ).GoogleCloudPlatformAuth();
    case 'exec':
      return new (await import('@kubernetes/client-node/dist/exec_auth.js')).ExecAuth();
    case 'file':
      return new (await import('@kubernetes/client-node/dist/file_auth.js')).FileAuth();
    case 'oidc':
      return new (await import('@kubernetes/client-node/dist/oidc_auth.js')).OpenIDConnectAuth();
  }
}
