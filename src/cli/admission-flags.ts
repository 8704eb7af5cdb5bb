import { Option, type Command } from 'commander';
import { isDnsLabel, isDnsSubdomain } from '../kube/index.js';
import {
  LONGHORN_V2_EXPANSION_POLICIES,
  resolveAdmissionOptions,
  type AdmissionOptions,
  type LonghornV2Expansion,
} from '../admission/index.js';

/** The flags `voe check` and `voe serve` share: where the admission decision reads its configuration. */
export interface AdmissionFlags {
  kubevirt: string;
  setting: string;
  longhornNamespace: string;
  longhornV2Expansion: LonghornV2Expansion;
}

export function addAdmissionFlags(command: Command): Command {
  const defaults = resolveAdmissionOptions();
  return command
    .option(
      '--kubevirt <namespace/name>',
      'the KubeVirt CR',
      `${defaults.kubeVirtNamespace}/${defaults.kubeVirtName}`,
    )
    .option(
      '--setting <name>',
      'the Harvester Setting listing validated CSI drivers',
      defaults.settingName,
    )
    .option(
      '--longhorn-namespace <namespace>',
      'namespace of the Longhorn CRs',
      defaults.longhornNamespace,
    )
    .addOption(
      new Option('--longhorn-v2-expansion <policy>', 'Longhorn v2 data engine policy')
        .choices(LONGHORN_V2_EXPANSION_POLICIES)
        .default(defaults.longhornV2Expansion),
    );
}

/** Admission options from the shared flags; `usageError` makes the command's own usage error. */
export function admissionOptionsFromFlags(
  flags: AdmissionFlags,
  usageError: (message: string) => Error,
): AdmissionOptions {
  const [kubeVirtNamespace, kubeVirtName, rest] = flags.kubevirt.split('/');
  if (!kubeVirtNamespace || !kubeVirtName || rest !== undefined) {
    throw usageError(
      `--kubevirt "${flags.kubevirt}" is not NAMESPACE/NAME, e.g. harvester-system/kubevirt.`,
    );
  }
  // A name no object can have would only ever be "not found": a typo, never a verdict.
  const quoted = (value: string): string => JSON.stringify(value.slice(0, 300));
  if (!isDnsLabel(kubeVirtNamespace) || !isDnsSubdomain(kubeVirtName)) {
    throw usageError(
      `--kubevirt ${quoted(flags.kubevirt)} is not NAMESPACE/NAME of an object (lower-case DNS names), e.g. harvester-system/kubevirt.`,
    );
  }
  if (!isDnsSubdomain(flags.setting)) {
    throw usageError(
      `--setting ${quoted(flags.setting)} is not a valid object name (a lower-case DNS subdomain), e.g. csi-online-expand-validation.`,
    );
  }
  if (!isDnsLabel(flags.longhornNamespace)) {
    throw usageError(
      `--longhorn-namespace ${quoted(flags.longhornNamespace)} is not a valid namespace name (a lower-case DNS label), e.g. longhorn-system.`,
    );
  }
  return resolveAdmissionOptions({
    kubeVirtNamespace,
    kubeVirtName,
    settingName: flags.setting,
    longhornNamespace: flags.longhornNamespace,
    longhornV2Expansion: flags.longhornV2Expansion,
  });
}
