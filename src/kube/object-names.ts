/** A DNS-1123 label (namespaces and most names: lower-case, at most 63 characters). */
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Whether `name` is a DNS-1123 subdomain, as the API server requires of most object names (at most 253 characters). */
export function isDnsSubdomain(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((part) => LABEL.test(part));
}

/** Whether `name` is a DNS-1123 label, as the API server requires of namespace names (at most 63 characters). */
export function isDnsLabel(name: string): boolean {
  return name.length <= 63 && LABEL.test(name);
}
