import { readlinkSync } from 'node:fs';

/** The inode of the initial PID namespace (PROC_PID_INIT_INO, 0xEFFFFFFC in the kernel's include/linux/proc_ns.h). */
const INITIAL_PID_NAMESPACE = `pid:[${0xeffffffc}]`;

/**
 * Whether the procfs at `procRoot` belongs to a PID namespace other than the node's initial one:
 * its pid 1 (that namespace's init) is then not the node's, and the processes outside it are not
 * listed. False when it is the initial one, or when that cannot be read (no such link, or voe may
 * not look at pid 1: then pid 1 is unreadable to the look for users too, which already refuses).
 */
export function showsOtherPidNamespace(procRoot: string): boolean {
  try {
    return readlinkSync(`${procRoot}/1/ns/pid`) !== INITIAL_PID_NAMESPACE;
  } catch {
    return false;
  }
}
