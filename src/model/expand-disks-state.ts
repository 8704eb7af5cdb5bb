import { versionAtLeast } from './compare-version.js';
import type { KubeVirt } from './kubevirt-objects.js';

/** KubeVirt made ExpandDisks GA (always on) in this release. */
export const EXPAND_DISKS_GA_SINCE = 'v1.9.0';
export const EXPAND_DISKS_GATE = 'ExpandDisks';

/**
 * Whether ExpandDisks is effectively on, and why: the one rule the webhook, `voe check` and the
 * tracker share, KubeVirt's own (v1.8 pkg/virt-config/feature-gates.go isFeatureGateEnabled;
 * docs/tracker.md "ExpandDisks"): GA from v1.9.0, else on when listed in featureGates, even if
 * disabledFeatureGates lists it too; a gate that only disabledFeatureGates lists is off. Pure.
 */
export function expandDisksState(kubeVirt: KubeVirt): { enabled: boolean; why: string } {
  const developer = kubeVirt.spec?.configuration?.developerConfiguration;
  const version = kubeVirt.status?.observedKubeVirtVersion;
  if (versionAtLeast(version, EXPAND_DISKS_GA_SINCE)) {
    return { enabled: true, why: `KubeVirt ${version} has ExpandDisks GA (always on)` };
  }
  const listed = developer?.featureGates?.includes(EXPAND_DISKS_GATE) ?? false;
  const disabled = developer?.disabledFeatureGates?.includes(EXPAND_DISKS_GATE) ?? false;
  if (listed)
    return {
      enabled: true,
      why: disabled
        ? 'ExpandDisks is listed in featureGates, which KubeVirt lets win over its listing in disabledFeatureGates'
        : 'ExpandDisks is listed in featureGates',
    };
  return {
    enabled: false,
    why: disabled
      ? 'ExpandDisks is listed in disabledFeatureGates and not in featureGates'
      : 'ExpandDisks is not listed in featureGates',
  };
}
