/** Where a VMI's domain runs: its namespace and the virt-launcher pod holding it. */
export interface VirshHost {
  namespace: string;
  /** The active virt-launcher pod (pods/exec); a local transport does not need it. */
  launcherPod: string | undefined;
  /** The user its compute container runs as (launcherUser): 0 for a root launcher; undefined when unknown. */
  launcherUser?: number | undefined;
}

/**
 * The port that runs one `virsh` command next to a domain and answers its standard output:
 * pods/exec into the virt-launcher pod's `compute` container in production (podExecVirsh), a
 * local process against a local libvirt in the lab (localVirsh). Arguments go as an array, never
 * through a shell. Rejects with PROBE_VIRSH_FAILED (virsh's own error in the message),
 * PROBE_TIMEOUT when `signal` aborts.
 */
export interface VirshTransport {
  /** For messages: "pods/exec" or "local". */
  readonly name: string;
  virsh(host: VirshHost, args: readonly string[], signal: AbortSignal): Promise<string>;
}
