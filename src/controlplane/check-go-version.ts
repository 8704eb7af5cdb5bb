import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ControlPlaneError } from './control-plane-error.js';
import { goModuleDir } from './go-module-dir.js';

/** The Go release go.mod's `go` line asks for ("1.24"), or undefined when it has none. */
export function requiredGoRelease(goMod: string): string | undefined {
  return /^go\s+(\d+\.\d+)/m.exec(goMod)?.[1];
}

/** Whether GOVERSION (go1.19.8, go1.25rc1, "devel go1.26-abc...") is a release older than `required` ("1.24"); false when it cannot be read. */
export function goOlderThan(goVersion: string, required: string): boolean {
  const found = /go(\d+)\.(\d+)/.exec(goVersion);
  const [major, minor] = required.split('.').map(Number);
  if (!found || major === undefined || minor === undefined) return false;
  const [foundMajor, foundMinor] = [Number(found[1]), Number(found[2])];
  return foundMajor < major || (foundMajor === major && foundMinor < minor);
}

const INSTEAD =
  'or point TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD (or KUBEBUILDER_ASSETS) at existing binaries';

/**
 * Fails with CONTROLPLANE_GO_MISSING when there is no `go` to run, and with CONTROLPLANE_GO_TOO_OLD
 * when it is older than the Go module's `go` line: an old go only lists the go.mod lines it cannot
 * read (Go 1.19: "invalid go version '1.24.0'", "unknown directive: godebug"), never the version it needs.
 * Run before building, with the build's environment.
 */
export async function checkGoVersion(env: NodeJS.ProcessEnv, label: string): Promise<void> {
  const required = requiredGoRelease(readFileSync(join(goModuleDir(), 'go.mod'), 'utf8'));
  // Outside any module: a go.mod that this go cannot read must not fail the question.
  const version = await new Promise<string>((resolve, reject) => {
    execFile(
      'go',
      ['env', 'GOVERSION'],
      { cwd: '/', env, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout.trim());
          return;
        }
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(
            new ControlPlaneError(
              'CONTROLPLANE_GO_MISSING',
              `cannot run go to build ${label}: ${error.message}. Install Go >= ${required ?? '1.24'} ${INSTEAD}.`,
              { cause: error },
            ),
          );
          return;
        }
        // Older than `go env GOVERSION` (Go 1.16): the build says what it can.
        resolve(`${stdout}${stderr}`.trim());
      },
    );
  });
  if (required !== undefined && goOlderThan(version, required)) {
    throw new ControlPlaneError(
      'CONTROLPLANE_GO_TOO_OLD',
      `the go on PATH is ${version}; building ${label} needs Go >= ${required} (the go line of ${join(goModuleDir(), 'go.mod')}). Install a newer Go ${INSTEAD}.`,
    );
  }
}
