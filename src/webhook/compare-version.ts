/** A release version as KubeVirt and Longhorn print it: v1.10.1, 1.9.0, v1.9.0-rc.1, v1.9.0-12-gabc. */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
  /** Text after "-" (a pre-release or a development build), empty for a release. */
  prerelease: string;
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
 * or development build of the minimum counts as below it (v1.9.0-rc.1 < v1.9.0): only a
 * release is known to carry the feature. Unparseable text is not at least anything.
 */
export function versionAtLeast(text: string | undefined, minimum: string): boolean {
  const version = parseReleaseVersion(text);
  const floor = parseReleaseVersion(minimum);
  if (!version || !floor) return false;
  for (const part of ['major', 'minor', 'patch'] as const) {
    if (version[part] !== floor[part]) return version[part] > floor[part];
  }
  return version.prerelease === '' || floor.prerelease !== '';
}
