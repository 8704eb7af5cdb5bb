import type { CsiDriver } from '../model/index.js';

/** Where the Setting validator looks up CSIDriver objects. */
export interface CsiDriverSource {
  synced(): boolean;
  getCsiDriver(name: string): CsiDriver | undefined;
}
