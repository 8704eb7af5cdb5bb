/**
 * The HTTP status with which the API server refused a pods/exec WebSocket upgrade, read from the
 * error @kubernetes/client-node's Exec rejects with (the `ws` package's "Unexpected server
 * response: 403"); undefined when the error says no status (a connection error). Pure.
 */
export function upgradeRefusalStatus(message: string): number | undefined {
  const match = /Unexpected server response: (\d{3})\b/.exec(message);
  return match ? Number(match[1]) : undefined;
}
