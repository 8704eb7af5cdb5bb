import { fileURLToPath } from 'node:url';

/** The Go module kube-controller-manager is built in (src/controlplane/guest-tools/go). */
export function guestToolsModuleDir(): string {
  // dist/src/controlplane/guest-tools/<this>.js -> <clone>/src/controlplane/guest-tools/go
  return fileURLToPath(new URL('../../../../src/controlplane/guest-tools/go/', import.meta.url));
}
