/** The lock key of a snapshot id (apart from volume ids, which may be the same text). */
export function snapshotLockKey(snapshotId: string): string {
  return `snapshot/${snapshotId}`;
}
