/** What serve needs from the informer layer (src/kube): caches for the validators and their sync state. */
export interface StartedCaches<C> {
  caches: C;
  ready(): boolean;
  /** Resources not synced yet (named by /readyz and the sync timeout). */
  unsynced(): string[];
  /** Resources the cluster does not serve, cached as empty (named by /readyz). */
  notServed(): string[];
  /**
   * Resources the cluster serves and voe watches but the decisions do not read yet, without making
   * voe unready (named by /readyz, counted by voe_webhook_caches_not_read): Longhorn's caches under
   * --longhorn auto that have not all listed (found after start, or cannot list: no Longhorn Role).
   */
  notRead?(): string[];
  stop(): Promise<void>;
}
