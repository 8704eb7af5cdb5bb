/** What /readyz is told about the caches (WebhookServerOptions.cacheStatus). */
export interface CacheStatus {
  unsynced?: string[];
  notServed?: string[];
  notRead?: string[];
}

/**
 * /readyz's answer: 200 `ok` (naming resources not served and not read yet) once the caches are
 * synced and the certificate is loaded and valid; else 503 `not ready: ` with what is missing.
 * `certificateNotValid` is why the served certificate cannot be served (expired, not yet valid).
 */
export function readinessAnswer(state: {
  cachesReady: boolean;
  status: CacheStatus;
  certificateLoaded: boolean;
  certificateNotValid: string | undefined;
}): { status: 200 | 503; text: string } {
  const { cachesReady, status } = state;
  const list = (names: string[] | undefined): string =>
    names?.length ? ` (${names.join(', ')})` : '';
  // Expired (or not yet valid): the API server refuses the handshake, so nothing is answered.
  const certificate = !state.certificateLoaded
    ? 'certificate not loaded'
    : state.certificateNotValid
      ? `certificate not servable: ${state.certificateNotValid}`
      : '';
  if (cachesReady && certificate === '') {
    const notServed = status.notServed?.length
      ? `; not served by the cluster, watched as empty: ${status.notServed.join(', ')}`
      : '';
    const notRead = status.notRead?.length
      ? `; served but not read yet (not listed, see the log): ${status.notRead.join(', ')}`
      : '';
    return { status: 200, text: `ok${notServed}${notRead}` };
  }
  const missing = [cachesReady ? '' : `caches not synced${list(status.unsynced)}`, certificate]
    .filter(Boolean)
    .join(', ');
  return { status: 503, text: `not ready: ${missing}` };
}
