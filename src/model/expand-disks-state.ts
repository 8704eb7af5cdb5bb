import { versionAtLeast } from './compare-version.js';
import type { KubeVirt } from './kubevirt-objects.js';

/** KubeVirt made ExpandDisks GA (always on) in this release. */
export const EXPAND_DISKS_GA_SINCE = 'v1.9.0';
export const EXPAND_DISKS_GATE = 'ExpandDisks';

/** Whether ExpandDisks is effectively on, and why. */
export function expandDisksState(kubeVirt: KubeVirt): { enabled: boolean; why: string } {
  const developer = kubeVirt.spec?.configuration?.developerConfiguration;
  const version = kubeVirt.status?.observedKubeVirtVersion;
  if (versionAtLeast(version, EXPAND_DISKS_GA_SINCE)) {
    return { enabled: true, why: `KubeVirt ${version} has ExpandDisks GA (always on)` };
  }
  const listed = developer?.featureGates?.includes(EXPAND_DISKS_GATE) ?? false;
  const disabled = developer?.disabledFeatureGates?.includes(EXPAND_DISKS_GATE) ?? false;
  if (listed && !disabled) return { enabled: true, why: 'ExpandDisks is listed in featureGates' };
  return {
    enabled: false,
    why: disabled
      ? 'ExpandDisks is listed in disabledFeatureGates'
      : 'ExpandDisks is not listed in featureGates',
  };
}
