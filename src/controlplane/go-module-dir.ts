import { fileURLToPath } from 'node:url';

/** The Go module that pins kube-apiserver and etcd (shipped in the npm package as src/controlplane/go). */
export function goModuleDir(): string {
  // dist/src/controlplane/<this>.js -> <package root>/src/controlplane/go
  return fileURLToPath(new URL('../../../src/controlplane/go/', import.meta.url));
}
