import { FsResizeError } from '../model/fsresize-error.js';
import type { MountEntry } from '../parse/parse-mountinfo.js';

/** A mount of the device, and whether its mount point shows it now (not hidden by another mount). */
export interface MountCandidate {
  entry: MountEntry;
  visible: boolean;
  /**
   * A mount of another filesystem (another major:minor) is listed at the same mount point: one of
   * the two hides the other. Mounts of the same filesystem listed twice there do not count.
   */
  stacked: boolean;
  /**
   * Why the mount point could not be opened to see what it shows (e.g. a dead FUSE mount): such a
   * mount is never chosen; its error is raised only when it is the mount asked for, or when the
   * device has no visible mount to use instead.
   */
  unusable?: FsResizeError;
}

export interface MountChoice {
  /** The mount the core uses; null when the device has no visible mount (of the wanted path). */
  chosen: MountEntry | null;
  /** Whether a mount of another filesystem is listed at the chosen mount point, under it. */
  chosenStacked: boolean;
  /** Mount points of the device that show it. */
  visible: string[];
  /**
   * Mount points of the device (at the wanted path, when one was asked for) that another mount
   * hides; not one where another mount of the device is on top (the path shows the device).
   */
  hidden: string[];
  /** Mount points of the device that could not be opened to see what they show, each with the reason; never used. */
  unusable: Array<{ mountPoint: string; reason: string }>;
}

/**
 * Pure: which mount of a device the core may use. Only a mount whose mount point shows the
 * filesystem now: the tools (xfs_io, xfs_growfs, btrfs) act on what a path shows, so a hidden
 * entry would make them act on the filesystem mounted over it. `wanted` is the mount path asked
 * for, in its canonical forms; when none of the device's mounts is there, FSRESIZE_MOUNT_MISMATCH.
 * Without a wanted path, among the visible mounts: read-write before read-only, then one alone at
 * its mount point before one mounted over another filesystem's mount (xfs_growfs looks its path up
 * in the mount table and finds the first mount there), then the filesystem's root before a
 * subdirectory.
 * A mount whose mount point could not be opened (candidate.unusable) is never chosen, and does not
 * stop the choice of another one; its error is thrown when it is at the wanted path and nothing
 * there shows the device, or, without a wanted path, when no mount of the device is visible (it
 * may be the one that shows the filesystem: voe cannot tell, so it does not guess).
 */
export function chooseMount(
  device: string,
  candidates: readonly MountCandidate[],
  wanted?: { given: string; paths: readonly string[] },
): MountChoice {
  const visible = candidates.filter((c) => c.visible).map((c) => c.entry);
  const shown = new Set(visible.map((m) => m.mountPoint));
  const hidden = candidates
    .filter((c) => !c.visible && c.unusable === undefined && !shown.has(c.entry.mountPoint))
    .map((c) => c.entry);
  const unusable = candidates.flatMap((c) =>
    c.unusable === undefined
      ? []
      : [{ mountPoint: c.entry.mountPoint, reason: `${c.unusable.code}: ${c.unusable.message}` }],
  );
  const firstUnusable = (among: readonly MountCandidate[]): FsResizeError | undefined =>
    among.find((c) => c.unusable !== undefined)?.unusable;
  if (wanted === undefined) {
    const rank = (c: MountCandidate): number =>
      (c.entry.readOnly ? 4 : 0) + (c.stacked ? 2 : 0) + (c.entry.root === '/' ? 0 : 1);
    const best = candidates.filter((c) => c.visible).sort((a, b) => rank(a) - rank(b))[0];
    if (best === undefined) {
      const failed = firstUnusable(candidates);
      if (failed) throw failed;
    }
    return {
      chosen: best?.entry ?? null,
      chosenStacked: best?.stacked ?? false,
      visible: visible.map((m) => m.mountPoint),
      hidden: hidden.map((m) => m.mountPoint),
      unusable,
    };
  }
  const at = (m: MountEntry): boolean => wanted.paths.includes(m.mountPoint);
  if (!candidates.some((c) => at(c.entry))) {
    const where = [
      ...visible.map((m) => m.mountPoint),
      ...hidden.map((m) => `${m.mountPoint} (hidden by another mount)`),
      ...unusable.map((u) => `${u.mountPoint} (cannot be opened)`),
    ];
    throw new FsResizeError(
      'FSRESIZE_MOUNT_MISMATCH',
      `${wanted.given} is not a mount point of ${device} (${where.length ? `it is mounted at ${where.join(', ')}` : 'it is not mounted'}); nothing was changed — give the right mount point, or none`,
    );
  }
  const pick = candidates.find((c) => c.visible && at(c.entry));
  if (pick === undefined) {
    const failed = firstUnusable(candidates.filter((c) => at(c.entry)));
    if (failed) throw failed;
  }
  return {
    chosen: pick?.entry ?? null,
    chosenStacked: pick?.stacked ?? false,
    visible: visible.map((m) => m.mountPoint),
    hidden: [...new Set(hidden.filter(at).map((m) => m.mountPoint))],
    unusable,
  };
}
