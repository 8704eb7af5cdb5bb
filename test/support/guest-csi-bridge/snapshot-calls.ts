import { eventually } from '../eventually.js';
import type { CsiClient } from './csi-client.js';

/** A CSI Snapshot as the driver answers it (proto field names). */
export interface CsiSnapshot {
  snapshot_id: string;
  source_volume_id: string;
  size_bytes: string;
  ready_to_use: boolean;
  creation_time: { seconds: string } | null;
}

/** CreateSnapshot of `source` named `name` with the VolumeSnapshotClass's `parameters`. */
export async function createSnapshot(
  client: CsiClient,
  name: string,
  source: string,
  parameters: Record<string, string>,
): Promise<CsiSnapshot> {
  const answer = await client.call<{ snapshot: CsiSnapshot }>('Controller', 'CreateSnapshot', {
    name,
    source_volume_id: source,
    parameters,
  });
  return answer.snapshot;
}

/** CreateSnapshot again until the host reports it ready, as csi-snapshotter does. */
export async function readySnapshot(
  client: CsiClient,
  name: string,
  source: string,
  parameters: Record<string, string>,
): Promise<CsiSnapshot> {
  let answer = await createSnapshot(client, name, source, parameters);
  await eventually(
    async () => {
      answer = await createSnapshot(client, name, source, parameters);
      return answer.ready_to_use;
    },
    30_000,
    `snapshot ${name} ready`,
  );
  return answer;
}
