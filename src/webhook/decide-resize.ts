import { compareQuantities, isKubeError, KubeErrorCode } from '../kube/index.js';
import { LONGHORN_DRIVER } from '../settings/index.js';
import type { AdmissionOptions } from './admission-options.js';
import { versionAtLeast } from './compare-version.js';
import { decideLonghorn, longhornFacts } from './decide-longhorn.js';
import type { KubeVirt, PersistentVolumeClaim, StorageClass } from './kube-objects.js';
import { storageRequest } from './storage-request.js';
import {
  HARVESTER_GATE_MESSAGE,
  harvesterHotplugMessage,
  harvesterProviderMessage,
  instanceOnlyNote,
  listVms,
  PVC_EXPAND_PREFIX,
  stopVmsAdvice,
  warning,
} from './resize-messages.js';
import type { ResizeDecision, ResizeFinding, ResizeSnapshot } from './resize-snapshot.js';
import { vmUsers } from './vm-users.js';

/** KubeVirt made ExpandDisks GA (always on) in this release. */
export const EXPAND_DISKS_GA_SINCE = 'v1.9.0';
export const EXPAND_DISKS_GATE = 'ExpandDisks';
/** KubeVirt resizes a running VM's block disk to the device's real capacity from this release (kubevirt#16365: LUKS). */
export const BLOCK_RESIZE_TO_CAPACITY_SINCE = 'v1.8.0';
export const BETA_PROVISIONER_ANNOTATION = 'volume.beta.kubernetes.io/storage-provisioner';
export const PROVISIONER_ANNOTATION = 'volume.kubernetes.io/storage-provisioner';

/**
 * Harvester's provisioner (GetProvisionedPVCProvisioner): the beta annotation when the key is
 * present, else the GA annotation; when that gives nothing or an empty value, the StorageClass
 * provisioner (the PV's driver is not consulted).
 */
export function resolveProvisioner(
  pvc: PersistentVolumeClaim,
  storageClass: StorageClass | null | undefined,
): string | undefined {
  const annotations = pvc.metadata?.annotations ?? {};
  const annotated = Object.hasOwn(annotations, BETA_PROVISIONER_ANNOTATION)
    ? annotations[BETA_PROVISIONER_ANNOTATION]
    : annotations[PROVISIONER_ANNOTATION];
  return annotated || storageClass?.provisioner;
}

/**
 * Every provisioner a growth of this PVC is judged against: Harvester's (resolveProvisioner on the
 * PVC as it would be stored) first, then, when they differ, the one the stored PVC named and the
 * StorageClass's (and that of the class Kubernetes takes as the PVC's, `claimStorageClass`, when
 * the beta storage-class annotation names another one than spec.storageClassName). The
 * storage-provisioner annotations are writable by anyone who may update the PVC, while a bound
 * PVC's class is not (the API server refuses a growth whose class changed): naming a validated
 * driver in the annotation (in the resize itself, or in an update before it) must not get a volume
 * of another driver past the Setting or the Longhorn checks. Empty when Harvester's is unknown.
 */
export function provisionersToJudge(
  pvc: PersistentVolumeClaim,
  oldPvc: PersistentVolumeClaim | null | undefined,
  storageClass: StorageClass | null | undefined,
  claimStorageClass?: StorageClass | null,
): string[] {
  const primary = resolveProvisioner(pvc, storageClass);
  if (!primary) return [];
  const others = [
    oldPvc ? resolveProvisioner(oldPvc, storageClass) : undefined,
    storageClass?.provisioner,
    claimStorageClass?.provisioner,
  ];
  return [...new Set([primary, ...others.filter((name): name is string => Boolean(name))])];
}

/** Why resolveProvisioner found nothing, and what to fix. */
function unknownProvisionerWhy(
  pvc: PersistentVolumeClaim,
  storageClass: StorageClass | null | undefined,
): string {
  const annotations = pvc.metadata?.annotations ?? {};
  const key = Object.hasOwn(annotations, BETA_PROVISIONER_ANNOTATION)
    ? BETA_PROVISIONER_ANNOTATION
    : Object.hasOwn(annotations, PROVISIONER_ANNOTATION)
      ? PROVISIONER_ANNOTATION
      : undefined;
  const annotation =
    key === undefined ? 'no storage-provisioner annotation' : `an empty ${key} annotation`;
  const className = pvc.spec?.storageClassName;
  if (!className) return `${annotation} and no storageClassName. Set the PVC's StorageClass`;
  if (storageClass)
    return `${annotation} and StorageClass "${className}" names no provisioner. Fix the StorageClass`;
  return `${annotation} and StorageClass "${className}" was not found. Make sure the StorageClass exists`;
}

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

/**
 * True when the update asks the volume to grow: spec.resources.requests.storage grows (both sides
 * set, new > old). Exact ("10Gi" equals "10240Mi"). A lowered request is not judged: Kubernetes
 * accepts one only above status.capacity, to recover from a failed expansion
 * (reference/kubernetes-expansion.md §1), and it never asks for more than the request already
 * pending, which the resizer goes on working towards whatever the webhook says; refusing it would
 * keep the larger growth pending and leave no way to lower it while a VM runs. Throws KubeError
 * KUBE_QUANTITY_INVALID for a malformed request, KUBE_QUANTITY_OUT_OF_RANGE for a new one beyond
 * voe's bound (1e1000); an old one beyond it is larger than any new one voe reads.
 */
export function storageGrows(
  oldPvc: PersistentVolumeClaim | null | undefined,
  pvc: PersistentVolumeClaim | null | undefined,
): boolean {
  if (!oldPvc || !pvc) return false;
  const newSize = storageRequest(pvc.spec?.resources?.requests);
  let oldSize;
  try {
    oldSize = storageRequest(oldPvc.spec?.resources?.requests);
  } catch (error) {
    // The API server's validation keeps stored requests above zero: one beyond the bound is huge.
    if (isKubeError(error, KubeErrorCode.QuantityOutOfRange)) return false;
    throw error;
  }
  if (oldSize === undefined || newSize === undefined) return false;
  return compareQuantities(newSize, oldSize) > 0;
}

/**
 * The 422 refusal of a storage request beyond voe's bound (KUBE_QUANTITY_OUT_OF_RANGE): the API
 * server accepts it, voe does not compute it; no storage comes near.
 */
export function outOfRangeDecision(pvcKey: string, error: Error): ResizeDecision {
  const message = `${PVC_EXPAND_PREFIX}the new storage request of PVC ${pvcKey} cannot be judged: ${error.message}.`;
  return {
    allowed: false,
    code: 422,
    reason: 'Invalid',
    message,
    warnings: [],
    decision: 'size-out-of-range',
    findings: [{ check: 'resize', outcome: 'refuse', decision: 'size-out-of-range', message }],
  };
}

function pvcKeyOf(pvc: PersistentVolumeClaim): string {
  return `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;
}

/** A 500 decision (internal error) outside any check, e.g. cache not synced. */
export function internalErrorDecision(decision: string, message: string): ResizeDecision {
  return {
    allowed: false,
    code: 500,
    reason: 'InternalError',
    message,
    warnings: [],
    decision,
    findings: [{ check: 'resize', outcome: 'error', decision, message }],
  };
}

/**
 * Judges a PVC update, purely from the snapshot. Only an update that asks the volume to grow
 * (storageGrows) is judged; everything else is allowed untouched.
 * Order (reference/harvester.md §1, seed 004): a VM using the PVC and not Stopped (or a running
 * VMI naming it, which Harvester does not read: vmUsers) ->
 * ExpandDisks effectively on -> not a hotplugged Filesystem volume -> provisioner validated
 * by the Setting -> Longhorn data engine. The first refusal decides; every check is still
 * evaluated and listed in `findings`. With no running VM the resize is allowed (offline).
 */
export function decideResize(snapshot: ResizeSnapshot, options: AdmissionOptions): ResizeDecision {
  const { pvc, oldPvc } = snapshot;
  const pvcKey = pvcKeyOf(pvc);
  let grows: boolean;
  try {
    grows = storageGrows(oldPvc, pvc);
  } catch (error) {
    if (isKubeError(error, KubeErrorCode.QuantityOutOfRange))
      return outOfRangeDecision(pvcKey, error);
    return internalErrorDecision(
      'quantity-invalid',
      `internal error: cannot read the storage request of PVC ${pvcKey}: ${(error as Error).message}`,
    );
  }
  if (!grows) {
    const message = `PVC ${pvcKey}: the update does not ask the volume to grow; nothing to judge.`;
    return {
      allowed: true,
      code: 200,
      message,
      warnings: [],
      decision: 'not-resize',
      findings: [{ check: 'resize', outcome: 'skip', decision: 'not-resize', message }],
    };
  }

  const findings: ResizeFinding[] = [];
  const warnings: string[] = [];
  const pvcName = pvc.metadata?.name ?? '';
  // Harvester's VMs (by their spec), and the running VMIs naming the PVC (a volume hotplugged
  // without --persist, or removed from the VM's spec while it runs, is on the VMI only).
  const users = vmUsers(snapshot, pvcName);
  const running = users.running;
  const stopAdvice = stopVmsAdvice(running);

  // 1. A running VM.
  if (running.length === 0) {
    const stopped = users.stopped;
    findings.push({
      check: 'vm',
      outcome: 'pass',
      decision: 'allowed-offline',
      message:
        stopped.length === 0
          ? `No VirtualMachine uses PVC ${pvcKey} (in its volumes or volumeClaimTemplates annotation) and no running VirtualMachineInstance ` +
            "has it, so no running VM's disk is at stake: allowed without the online checks (a pod using it sees it grow as Kubernetes grows any volume)."
          : `Only stopped VMs use PVC ${pvcKey} (${listVms(stopped)}); it expands offline and the VM sees the size at next start.`,
    });
  } else {
    findings.push({
      check: 'vm',
      outcome: 'pass',
      decision: 'online',
      message:
        `Running VM(s) use PVC ${pvcKey} (${listVms(running)}): online expansion rules apply.` +
        (users.instanceOnly.length > 0 ? ` ${instanceOnlyNote(users.instanceOnly)}` : ''),
    });
  }

  // 2. ExpandDisks.
  const kubeVirtKey = `${options.kubeVirtNamespace}/${options.kubeVirtName}`;
  if (!snapshot.kubeVirt) {
    findings.push({
      // Harvester denies a failed cache read as an internal error (reference/harvester.md): no PVC_EXPAND prefix, retried.
      check: 'expand-disks',
      outcome: 'error',
      decision: 'kubevirt-missing',
      message:
        `internal error: KubeVirt CR ${kubeVirtKey} not found, so the ExpandDisks feature gate cannot be confirmed. ` +
        `Check that KubeVirt is installed there (or configure the add-on's KubeVirt location, --kubevirt), or ${stopAdvice}.`,
    });
  } else {
    const gate = expandDisksState(snapshot.kubeVirt);
    findings.push(
      gate.enabled
        ? { check: 'expand-disks', outcome: 'pass', decision: 'allowed', message: `${gate.why}.` }
        : {
            check: 'expand-disks',
            outcome: 'refuse',
            decision: 'gate-missing',
            message:
              `${HARVESTER_GATE_MESSAGE}. ${gate.why} of KubeVirt ${kubeVirtKey}: add ExpandDisks to ` +
              `spec.configuration.developerConfiguration.featureGates (and remove it from disabledFeatureGates), or ${stopAdvice}.`,
          },
    );
  }

  // 3. Hotplugged Filesystem volume (volumeMode defaults to Filesystem).
  const volumeMode = pvc.spec?.volumeMode ?? 'Filesystem';
  const hotplugging = users.hotplugging;
  if (volumeMode === 'Filesystem' && hotplugging.length > 0) {
    const instanceOnly = users.hotpluggingInstanceOnly;
    findings.push({
      check: 'hotplug',
      outcome: 'refuse',
      decision: 'hotplug-filesystem',
      message:
        `${harvesterHotplugMessage(pvcKey)}. It is hotplugged into ${listVms(hotplugging)}` +
        (instanceOnly.length > 0
          ? ` (${instanceOnlyNote(instanceOnly, { sentence: false })})`
          : '') +
        ', and a hotplugged Filesystem volume may no longer be mounted by any hotplug pod, so it would never grow inside the VM. ' +
        `Use a Block-mode volume for hotplug${instanceOnly.length > 0 ? " (added with virtctl addvolume --persist, so that the VM's spec names it)" : ''}, ` +
        `or ${stopAdvice}.`,
    });
  } else {
    findings.push({
      check: 'hotplug',
      outcome: 'pass',
      decision: 'allowed',
      message:
        hotplugging.length > 0
          ? `Hotplugged volume in ${volumeMode} mode: supported.`
          : `Not hotplugged (volumeMode ${volumeMode}).`,
    });
  }

  // 4. Provisioner validated by the Setting.
  const provisioners = provisionersToJudge(
    pvc,
    oldPvc,
    snapshot.storageClass,
    snapshot.claimStorageClass,
  );
  const provisioner = provisioners[0];
  const setting = snapshot.expandSetting;
  if (setting.state === 'invalid') {
    findings.push({
      check: 'provisioner',
      outcome: 'error',
      decision: 'setting-invalid',
      message: `internal error: ${setting.error.message} (${setting.error.code}). Fix the Setting ${options.settingName}.`,
    });
  } else if (!provisioner) {
    findings.push({
      // Harvester answers this as an internal error (getPVCProvisioner's error, no PVC_EXPAND prefix), so
      // its VM controller retries a VM-page resize instead of giving up: e.g. once the StorageClass exists again.
      check: 'provisioner',
      outcome: 'error',
      decision: 'provisioner-unknown',
      message: `internal error: the provisioner of PVC ${pvcKey} cannot be determined: ${unknownProvisionerWhy(pvc, snapshot.storageClass)}, or ${stopAdvice}.`,
    });
  } else {
    const allows = (name: string): boolean =>
      setting.state === 'parsed' ? setting.validation.allows(name) : name === LONGHORN_DRIVER;
    if (setting.state === 'missing') {
      warnings.push(
        warning(
          `Setting ${options.settingName} not found; used Harvester's default {"${LONGHORN_DRIVER}":true}`,
        ),
      );
    }
    const unvalidated = provisioners.find((name) => !allows(name));
    // More than one: the annotation (now, or before this update) and the StorageClass disagree; each is judged.
    const disagreement =
      provisioners.length > 1
        ? ` (PVC ${pvcKey} names provisioner ${provisioner}, but ${provisioners.slice(1).join(' and ')} ${provisioners.length > 2 ? 'are' : 'is'} named by its ` +
          `StorageClass or by the PVC before this update; a growth is judged against each)`
        : '';
    findings.push(
      unvalidated === undefined
        ? {
            check: 'provisioner',
            outcome: 'pass',
            decision: 'allowed',
            message: `Provisioner ${provisioners.join(' and ')} ${provisioners.length > 1 ? 'are' : 'is'} validated in Setting ${options.settingName}${disagreement}.`,
          }
        : {
            check: 'provisioner',
            outcome: 'refuse',
            decision: 'provisioner-not-validated',
            message:
              `${harvesterProviderMessage(pvcKey)}. Provisioner ${unvalidated} is not validated for online expansion in ` +
              `Setting ${options.settingName}${disagreement}. If the driver supports online expansion, ` +
              (setting.state === 'missing'
                ? `create the Setting with value {"${unvalidated}":true,"${LONGHORN_DRIVER}":true}`
                : `add "${unvalidated}":true to the Setting's value`) +
              `, or ${stopAdvice}.`,
          },
    );
  }

  // 5. Longhorn data engine (of any volume the PVC's provisioners say is Longhorn's).
  if (provisioners.includes(LONGHORN_DRIVER)) {
    const facts = longhornFacts(
      snapshot.longhorn,
      snapshot.storageClass ?? snapshot.claimStorageClass,
    );
    const finding = decideLonghorn(facts, pvcKey, stopAdvice, options, pvc.spec?.volumeName);
    const kubeVirtVersion = snapshot.kubeVirt?.status?.observedKubeVirtVersion;
    const blockLuks = facts.encrypted && volumeMode === 'Block';
    if (
      finding.outcome === 'pass' &&
      blockLuks &&
      running.length > 0 &&
      !versionAtLeast(kubeVirtVersion, BLOCK_RESIZE_TO_CAPACITY_SINCE)
    ) {
      // Admitted (Harvester admits it), but the running VM will not see the size: say so now.
      // (A Filesystem-mode disk is a disk.img KubeVirt grows itself; only Block-mode disks are resized to the PVC size.)
      finding.message +=
        ` It is encrypted, and KubeVirt ${kubeVirtVersion ?? '(version unknown)'} resizes a running VM's disk to the PVC size, ` +
        `which a LUKS device is smaller than ("Cannot grow device files", fixed in KubeVirt ${BLOCK_RESIZE_TO_CAPACITY_SINCE}): ` +
        'the VM sees the new size after a restart.';
      warnings.push(
        warning(
          `Encrypted volume: KubeVirt before ${BLOCK_RESIZE_TO_CAPACITY_SINCE} cannot grow it in the running VM; it shows after a restart`,
        ),
      );
    }
    findings.push(finding);
  } else {
    findings.push({
      check: 'longhorn',
      outcome: 'skip',
      decision: 'allowed',
      message: 'Not a Longhorn volume.',
    });
  }

  if (running.length === 0) {
    const offline = findings[0] as ResizeFinding;
    return {
      allowed: true,
      code: 200,
      message: offline.message,
      warnings: [],
      decision: 'allowed-offline',
      findings,
    };
  }
  const blocking = findings.find(
    (finding) => finding.outcome === 'refuse' || finding.outcome === 'error',
  );
  if (blocking) {
    const internal = blocking.outcome === 'error';
    return {
      allowed: false,
      code: internal ? 500 : 422,
      reason: internal ? 'InternalError' : 'Invalid',
      message: blocking.message,
      warnings,
      decision: blocking.decision,
      findings,
    };
  }
  return {
    allowed: true,
    code: 200,
    message: `Online expansion of PVC ${pvcKey} is allowed.`,
    warnings,
    decision: 'allowed',
    findings,
  };
}
