import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GO_BUILD_SETTINGS } from './go-build-env.js';
import { goModuleDir } from './go-module-dir.js';
import { ETCD_VERSION, KUBERNETES_VERSION } from './versions.js';

/** One binary of the control plane and how it is built from the Go module. */
export interface BuildStep {
  binary: 'kube-apiserver' | 'etcd';
  pkg: string;
  /** For messages: "etcd v3.5.21". */
  label: string;
  ldflags?: string;
  /** A line `<binary> --version` prints when the build is what it should be (and runs here). */
  versionLine: string;
}

/** `go build` flags of every step. */
export const BUILD_FLAGS: readonly string[] = ['-trimpath'];

const LDFLAG_PACKAGES = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];

/** Stamps the Kubernetes version, so `/version` and `--version` report it (a module build has no git tree to read it from). */
export function versionLdflags(): string {
  const [major, minor] = KUBERNETES_VERSION.replace(/^v/, '').split('.');
  return LDFLAG_PACKAGES.flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${KUBERNETES_VERSION}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]).join(' ');
}

export const BUILD_STEPS: readonly BuildStep[] = [
  {
    binary: 'kube-apiserver',
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    label: `kube-apiserver ${KUBERNETES_VERSION}`,
    ldflags: versionLdflags(),
    versionLine: `Kubernetes ${KUBERNETES_VERSION}`,
  },
  {
    binary: 'etcd',
    pkg: 'go.etcd.io/etcd/server/v3',
    label: `etcd ${ETCD_VERSION}`,
    versionLine: `etcd Version: ${ETCD_VERSION.replace(/^v/, '')}`,
  },
];

/**
 * Twelve hex digits of a SHA-256 over everything that decides what the build makes: go.mod and
 * go.sum (every pinned module version), the flags, the settings and the steps. The cached binaries
 * live in a directory named with it, so a voe whose recipe differs (a dependency bumped in go.sum,
 * a flag added) builds its own instead of silently using another's.
 */
export function recipeKey(goMod: string, goSum: string): string {
  const recipe = JSON.stringify({
    goMod,
    goSum,
    flags: BUILD_FLAGS,
    settings: GO_BUILD_SETTINGS,
    steps: BUILD_STEPS,
  });
  return createHash('sha256').update(recipe).digest('hex').slice(0, 12);
}

let key: string | undefined;

/** recipeKey of the Go module shipped with this voe (read once). */
export function moduleRecipeKey(): string {
  key ??= recipeKey(
    readFileSync(join(goModuleDir(), 'go.mod'), 'utf8'),
    readFileSync(join(goModuleDir(), 'go.sum'), 'utf8'),
  );
  return key;
}
