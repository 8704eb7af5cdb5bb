import { LONGHORN_DRIVER } from '../settings/index.js';
import { harvesterProviderMessage, warning } from './resize-messages.js';
import type { ResizeCase, RuleJudgement } from './resize-case.js';
import type { ExpandSettingState, ResizeFinding } from './resize-snapshot.js';
import { unknownProvisionerWhy } from './unknown-provisioner-why.js';
import { Decision } from './decision.js';

/**
 * Step 4: every provisioner of the PVC (provisionersToJudge) validated by the Setting. A Setting
 * that cannot be read, or a provisioner that cannot be determined, is an internal error; a
 * missing Setting is read as Harvester's default, with a warning.
 */
export function provisionerRule(resize: ResizeCase): RuleJudgement {
  const { snapshot, options, pvcKey, stopAdvice } = resize;
  const setting = snapshot.expandSetting;
  if (setting.state === 'invalid') {
    return {
      finding: {
        check: 'provisioner',
        outcome: 'error',
        decision: Decision.SettingInvalid,
        message: `internal error: ${setting.error.message} (${setting.error.code}). Fix the Setting ${options.settingName}.`,
      },
    };
  }
  if (resize.provisioners.length === 0) {
    return {
      finding: {
        // Harvester answers this as an internal error (getPVCProvisioner's error, no PVC_EXPAND prefix), so
        // its VM controller retries a VM-page resize instead of giving up: e.g. once the StorageClass exists again.
        check: 'provisioner',
        outcome: 'error',
        decision: Decision.ProvisionerUnknown,
        message: `internal error: the provisioner of PVC ${pvcKey} cannot be determined: ${unknownProvisionerWhy(snapshot.pvc, snapshot.storageClass)}, or ${stopAdvice}.`,
      },
    };
  }
  const finding = settingFinding(resize, setting);
  if (setting.state !== 'missing') return { finding };
  return {
    finding,
    warning: warning(
      `Setting ${options.settingName} not found; used Harvester's default {"${LONGHORN_DRIVER}":true}`,
    ),
  };
}

/** Whether the Setting (or, when it is missing, Harvester's default) validates every provisioner. */
function settingFinding(
  { options, pvcKey, stopAdvice, provisioners }: ResizeCase,
  setting: Exclude<ExpandSettingState, { state: 'invalid' }>,
): ResizeFinding {
  const allows = (name: string): boolean =>
    setting.state === 'parsed' ? setting.validation.allows(name) : name === LONGHORN_DRIVER;
  const unvalidated = provisioners.find((name) => !allows(name));
  const disagreement = disagreementNote(pvcKey, provisioners);
  if (unvalidated === undefined) {
    return {
      check: 'provisioner',
      outcome: 'pass',
      decision: Decision.Allowed,
      message: `Provisioner ${provisioners.join(' and ')} ${provisioners.length > 1 ? 'are' : 'is'} validated in Setting ${options.settingName}${disagreement}.`,
    };
  }
  return {
    check: 'provisioner',
    outcome: 'refuse',
    decision: Decision.ProvisionerNotValidated,
    message:
      `${harvesterProviderMessage(pvcKey)}. Provisioner ${unvalidated} is not validated for online expansion in ` +
      `Setting ${options.settingName}${disagreement}. If the driver supports online expansion, ` +
      (setting.state === 'missing'
        ? `create the Setting with value {"${unvalidated}":true,"${LONGHORN_DRIVER}":true}`
        : `add "${unvalidated}":true to the Setting's value`) +
      `, or ${stopAdvice}.`,
  };
}

/**
 * More than one provisioner: the annotation (now, or before this update) and the StorageClass
 * disagree, and each is judged; said in parentheses. Empty for one.
 */
function disagreementNote(pvcKey: string, provisioners: string[]): string {
  if (provisioners.length <= 1) return '';
  return (
    ` (PVC ${pvcKey} names provisioner ${provisioners[0]}, but ${provisioners.slice(1).join(' and ')} ${provisioners.length > 2 ? 'are' : 'is'} named by its ` +
    `StorageClass or by the PVC before this update; a growth is judged against each)`
  );
}
