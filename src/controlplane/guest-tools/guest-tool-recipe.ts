import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_FLAGS, versionLdflags } from '../build-recipe.js';
import { GO_BUILD_SETTINGS } from '../go-build-env.js';
import { KUBERNETES_VERSION } from '../versions.js';
import { guestToolsModuleDir } from './guest-tools-module-dir.js';

/**
 * One program of a test guest cluster and how it is built from Go modules: either a package of
 * the guest tools' Go module (src/controlplane/guest-tools/go: the control plane's module, with
 * the go.sum entries kube-controller-manager and kubectl need beyond kube-apiserver's), or the
 * main package of a released module, downloaded (`go mod download`) and built inside a copy of it
 * (`go install module@version` refuses modules with `replace` directives).
 */
export interface GuestTool {
  binary:
    | 'kube-controller-manager'
    | 'kubectl'
    | 'csi-provisioner'
    | 'csi-attacher'
    | 'csi-resizer'
    | 'csi-snapshotter'
    | 'snapshot-controller';
  /** The release built. */
  version: string;
  /** The released module (absent: the guest tools' Go module). */
  module?: string;
  /**
   * Modules of the same repository and release the released module's go.mod replaces with a
   * directory of its own (`replace ... => ./client`): a module's zip leaves nested modules out,
   * so each is downloaded at the tool's version and copied there.
   */
  nested?: ReadonlyArray<{ module: string; dir: string }>;
  /** The main package: an import path in the guest tools' module, `./cmd/...` in a released one. */
  pkg: string;
  ldflags: string;
  /** The arguments that print the tool's version (absent: `--version`). */
  versionArgs?: readonly string[];
  /** How a line of the tool's version output ends when the build is what it should be. */
  versionSuffix: string;
}

/** A kubernetes-csi sidecar's release, stamped as its release Makefile does (`-X main.version`). */
function sidecar(binary: GuestTool['binary'], module: string, version: string): GuestTool {
  return {
    binary,
    version,
    module,
    pkg: `./cmd/${binary}`,
    ldflags: `-X main.version=${version}`,
    versionSuffix: ` ${version}`,
  };
}

const SNAPSHOTTER = 'github.com/kubernetes-csi/external-snapshotter/v8';
/** external-snapshotter's go.mod replaces its client module with ./client. */
const SNAPSHOTTER_NESTED = [
  { module: 'github.com/kubernetes-csi/external-snapshotter/client/v8', dir: 'client' },
];

/**
 * kube-controller-manager and kubectl of the Kubernetes release kube-apiserver is built from
 * (kubectl runs the commands of docs/install.md and docs/troubleshooting.md), the CSI sidecars at the releases charts/voe-csi ships (test/unit/controlplane/guest-tools checks that
 * the two agree), and the snapshot controller of csi-snapshotter's release.
 */
export const GUEST_TOOLS: readonly GuestTool[] = [
  {
    binary: 'kube-controller-manager',
    version: KUBERNETES_VERSION,
    pkg: 'k8s.io/kubernetes/cmd/kube-controller-manager',
    ldflags: versionLdflags(),
    versionSuffix: `Kubernetes ${KUBERNETES_VERSION}`,
  },
  {
    binary: 'kubectl',
    version: KUBERNETES_VERSION,
    pkg: 'k8s.io/kubernetes/cmd/kubectl',
    ldflags: versionLdflags(),
    versionArgs: ['version', '--client'],
    versionSuffix: `Client Version: ${KUBERNETES_VERSION}`,
  },
  sidecar('csi-provisioner', 'github.com/kubernetes-csi/external-provisioner/v6', 'v6.4.0'),
  sidecar('csi-attacher', 'github.com/kubernetes-csi/external-attacher/v4', 'v4.13.0'),
  sidecar('csi-resizer', 'github.com/kubernetes-csi/external-resizer/v2', 'v2.3.0'),
  { ...sidecar('csi-snapshotter', SNAPSHOTTER, 'v8.7.0'), nested: SNAPSHOTTER_NESTED },
  // The guest's snapshot controller, of the same release: what a distribution runs beside the
  // snapshot CRDs (not the chart's: the cluster's).
  { ...sidecar('snapshot-controller', SNAPSHOTTER, 'v8.7.0'), nested: SNAPSHOTTER_NESTED },
];

/**
 * Twelve hex digits of a SHA-256 over what decides the build of `tool`: the recipe, go's flags
 * and settings, and, for a package of the guest tools' module, its go.mod and go.sum. A released
 * module's go.sum is fixed by its version.
 */
export function guestToolKey(tool: GuestTool): string {
  const recipe = JSON.stringify({
    tool,
    flags: BUILD_FLAGS,
    settings: GO_BUILD_SETTINGS,
    module: tool.module ?? localModule(),
  });
  return createHash('sha256').update(recipe).digest('hex').slice(0, 12);
}

let local: string | undefined;

/** The guest tools' go.mod and go.sum (read once). */
function localModule(): string {
  local ??= ['go.mod', 'go.sum']
    .map((file) => readFileSync(join(guestToolsModuleDir(), file), 'utf8'))
    .join('\0');
  return local;
}
