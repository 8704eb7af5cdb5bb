/** The namespaces of --guest-probe-namespaces ("ns1,ns2"): trimmed, empty entries dropped. Pure. */
export function parseGuestProbeNamespaces(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((namespace) => namespace.trim())
        .filter(Boolean),
    ),
  ];
}

/** Whether the guest probe may probe a VM in `namespace`; undefined lists every namespace. Pure. */
export function guestProbeNamespaceListed(
  namespace: string | undefined,
  namespaces: readonly string[] | undefined,
): boolean {
  return namespaces === undefined || (namespace !== undefined && namespaces.includes(namespace));
}
