import type { CsiDriver } from './kube-objects.js';

/** Where the Setting validator looks up CSIDriver objects. */
export interface CsiDriverSource {
  synced(): boolean;
  getCsiDriver(name: string): CsiDriver | undefined;
}
