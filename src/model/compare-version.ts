/**
 * A release version as KubeVirt and Longhorn print it: v1.10.1, 1.9.0, v1.9.0-rc.1, v1.9.0-12-gabc,
 * 1.4.0-150600.5.15.1 (SUSE's KubeVirt in Harvester), v1.10.0-hotfix-1 (a Longhorn hotfix).
 */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
  /** Text after "-" (a pre-release, or a build of the release: see isPrerelease), empty for a release. */
  prerelease: string;
}

/**
 * Suffixes that name a build of the release itself, not a version before it: a package revision
 * (1.4.0-150600.5.15.1: Harvester ships SUSE's KubeVirt builds, whose observedKubeVirtVersion
 * always carries one), commits after the tag (v1.9.0-12-gabcdef, git describe) and a hotfix
 * (v1.10.0-hotfix-1, Longhorn's hotfix images).
 */
const RELEASE_BUILD = /^(?:\d|hotfix)/i;

/** True for a pre-release or development version (v1.9.0-rc.1, v1.10.0-dev-20250101): any other suffix with letters first. */
function isPrerelease(version: ReleaseVersion): boolean {
  return version.prerelease !== '' && !RELEASE_BUILD.test(version.prerelease);
}

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseReleaseVersion(text: string | undefined): ReleaseVersion | undefined {
  const match = text === undefined ? null : VERSION.exec(text.trim());
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3] ?? '0'),
    prerelease: match[4] ?? '',
  };
}

/**
 * True when `text` is a version at or above `minimum` (a release like "v1.9.0"). A pre-release
 * or development version of the minimum counts as below it (v1.9.0-rc.1 < v1.9.0): only a
 * release is known to carry the feature; a build of the release (package revision, commits
 * after the tag, hotfix) is the release. Unparseable text is not at least anything.
 */
export function versionAtLeast(text: string | undefined, minimum: string): boolean {
  const version = parseReleaseVersion(text);
  const floor = parseReleaseVersion(minimum);
  if (!version || !floor) return false;
  for (const part of ['major', 'minor', 'patch'] as const) {
    if (version[part] !== floor[part]) return version[part] > floor[part];
  }
  return !isPrerelease(version) || isPrerelease(floor);
}
