import { homedir } from 'node:os';

/**
 * What chooses the machine `go build` targets: the binaries are run here, so a cross-compiling
 * shell's values are dropped rather than cached as binaries this machine cannot run.
 */
const TARGET_VARIABLES = ['GOOS', 'GOARCH'] as const;

/** The recipe's settings, which win over the environment's: no cgo, the installed toolchain only, go.sum as it is, no go.work. */
export const GO_BUILD_SETTINGS = {
  CGO_ENABLED: '0',
  GOTOOLCHAIN: 'local',
  GOFLAGS: '-mod=readonly',
  GOWORK: 'off',
} as const;

/** This user's home directory from the password database, or undefined where it has none. */
function passwdHome(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The environment `go` builds the control plane in: `env` with the recipe's settings (no cgo, the
 * installed toolchain only, go.sum as it is, and no go.work: one in the environment or above the
 * package would take the module out of the build), without target variables, and with a HOME
 * (the one voe's own cache defaults under) when `env` has none: go keeps its build and module
 * caches under it and fails without one.
 */
export function goBuildEnv(
  env: NodeJS.ProcessEnv,
  home: () => string | undefined = passwdHome,
): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env };
  for (const name of TARGET_VARIABLES) delete result[name];
  if (!result['HOME']) {
    const found = home();
    if (found) result['HOME'] = found;
    else delete result['HOME'];
  }
  return { ...result, ...GO_BUILD_SETTINGS };
}
