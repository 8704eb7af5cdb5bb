import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The token in the kubeconfig, for asserting that it never reaches output. */
export const UNREACHABLE_TOKEN = 'not-a-real-token';

/**
 * Writes DIR/kubeconfig: it loads, but its API server (127.0.0.1:1, or `server`) refuses every
 * connection, so option errors must come before any API call and API failures can be provoked.
 */
export async function writeUnreachableKubeconfig(
  dir: string,
  server = 'https://127.0.0.1:1',
): Promise<string> {
  const path = join(dir, 'kubeconfig');
  await writeFile(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      `clusters: [{name: c, cluster: {server: ${JSON.stringify(server)}}}]`,
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      `users: [{name: u, user: {token: ${UNREACHABLE_TOKEN}}}]`,
      '',
    ].join('\n'),
  );
  return path;
}

/** Secrets in the broken kubeconfig, for asserting that a parse error never quotes them. */
export const BROKEN_SECRETS = ['FAKE-BEARER-TOKEN-abcdef', 'RkFLRVNFQ1JFVEtFWURBVEE='];

/** Writes DIR/broken-kubeconfig: a YAML indentation error on the line after a token and key data. */
export async function writeBrokenKubeconfig(dir: string): Promise<string> {
  const path = join(dir, 'broken-kubeconfig');
  await writeFile(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'users:',
      '- name: u',
      '  user:',
      `    client-key-data: ${BROKEN_SECRETS[1]}`,
      `    token: ${BROKEN_SECRETS[0]}`,
      '   oops: here',
      '',
    ].join('\n'),
  );
  return path;
}
