/** How the bridge hotplugs a host PVC into a guest node's VM. */
export type HotplugMode = 'declarative' | 'legacy';

/** The Harvester version from which volumes are hotplugged by editing the VM's spec. */
export const DECLARATIVE_HOTPLUG_SINCE = [1, 8] as const;

/**
 * Harvester's rule, from its `server-version` Setting's value: v1.8 and later, and any value that
 * is not a version (a development build, or no Setting at all: not a Harvester whose age is
 * known), edit the VirtualMachine's spec (KubeVirt's declarative hotplug); an older Harvester
 * uses KubeVirt's addvolume/removevolume subresources.
 */
export function decideHotplugMode(serverVersion: string | undefined): HotplugMode {
  const match = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec((serverVersion ?? '').trim());
  if (!match) return 'declarative';
  const major = Number(match[1]);
  const minor = Number(match[2]);
  const [sinceMajor, sinceMinor] = DECLARATIVE_HOTPLUG_SINCE;
  return major > sinceMajor || (major === sinceMajor && minor >= sinceMinor)
    ? 'declarative'
    : 'legacy';
}
