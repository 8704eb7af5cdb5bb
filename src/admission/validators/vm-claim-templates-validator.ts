import { compareQuantities, isKubeError, type QuantityValue } from '../../kube/index.js';
import type { AdmissionOptions } from '../admission-options.js';
import { assembleResizeSnapshot } from '../assemble-resize-snapshot.js';
import { decideResize } from '../decide-resize.js';
import {
  type PersistentVolumeClaim,
  type VirtualMachine,
  readJsonQuantity,
  storageRequest,
  claimTemplatesOf,
  parseVolumeClaimTemplates,
  VOLUME_CLAIM_TEMPLATES_ANNOTATION,
  type ClaimTemplate,
} from '../../model/index.js';
import { PVC_EXPAND_PREFIX } from '../resize-messages.js';
import { notSyncedVerdict } from './not-synced-verdict.js';
import type { ResizeSnapshotSource } from '../resize-snapshot-source.js';
import { allowedVerdict, internalErrorVerdict, invalidVerdict, toVerdict } from './to-verdict.js';
import type { AdmissionRequest, AdmissionVerdict, Validator } from './validator.js';
import { Decision, type DecisionValue } from '../decision.js';

export const VM_CLAIM_TEMPLATES_PATH = '/validate/vm';

/** Harvester's VM validator sentence for a smaller template size (PR #9204). */
export const HARVESTER_TEMPLATE_SHRINK_MESSAGE =
  "requests storage can't be less than previous value";

function keyed(templates: ClaimTemplate[]): Map<string, ClaimTemplate> {
  const map = new Map<string, ClaimTemplate>();
  for (const template of templates)
    if (template.pvc.metadata?.name) map.set(template.pvc.metadata.name, template);
  return map;
}

/** A copy of the live PVC with its storage request raised to `storage`. */
function withStorage(pvc: PersistentVolumeClaim, storage: unknown): PersistentVolumeClaim {
  return {
    ...pvc,
    spec: {
      ...pvc.spec,
      resources: {
        ...pvc.spec?.resources,
        requests: { ...pvc.spec?.resources?.requests, storage },
      },
    },
  };
}

const ZERO: QuantityValue = { num: 0n, den: 1n };

const TEMPLATES_FIELD = `metadata.annotations[${VOLUME_CLAIM_TEMPLATES_ANNOTATION}]`;

/** A storage class name for a message: none when unset, "" (quoted) when set empty. */
const className = (name: string | null): string =>
  name === null ? 'none' : name === '' ? '""' : name;

/**
 * The VM-page resize path: diffs the VM's harvesterhci.io/volumeClaimTemplates annotation.
 * A smaller size or a changed storage class is refused; a larger size is judged by
 * decideResize against the live PVC from the cache (with the VM as it will be stored).
 */
export function createVmClaimTemplatesValidator(deps: {
  source: ResizeSnapshotSource;
  options: AdmissionOptions;
}): Validator {
  const { source, options } = deps;
  return {
    name: 'vm',
    path: VM_CLAIM_TEMPLATES_PATH,
    validate(request: AdmissionRequest): AdmissionVerdict {
      const vm = request.object as VirtualMachine | null | undefined;
      const oldVm = request.oldObject as VirtualMachine | null | undefined;
      if (request.operation !== 'UPDATE' || request.subResource || !vm || !oldVm)
        return allowedVerdict(Decision.NotTemplateChange);
      const oldText = oldVm.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION];
      const newText = vm.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION];
      if (oldText === newText) return allowedVerdict(Decision.NotTemplateChange);
      try {
        return judgeTemplates(source, options, oldVm, vm);
      } catch (error) {
        return internalErrorVerdict(
          Decision.InternalError,
          `internal error: ${(error as Error).message}`,
        );
      }
    },
  };
}

/** The stored template's size: absent counts as zero (Harvester's Requests.Storage()), unreadable as unknown. */
function lenientStorageRequest(template: ClaimTemplate): QuantityValue | undefined {
  try {
    return template.storage === undefined
      ? ZERO
      : (readJsonQuantity(template.storage)?.value ?? ZERO);
  } catch {
    return undefined;
  }
}

/**
 * The VM's template changes, in three steps: the new annotation must be readable; each template
 * already there may not shrink or change its storage class (templateChange); the growing ones are
 * judged against their live PVCs (judgeGrowths).
 */
function judgeTemplates(
  source: ResizeSnapshotSource,
  options: AdmissionOptions,
  oldVm: VirtualMachine,
  vm: VirtualMachine,
): AdmissionVerdict {
  const vmKey = `${vm.metadata?.namespace ?? ''}/${vm.metadata?.name ?? ''}`;
  // The new value must be what Harvester's VM validator can read; a malformed stored (old) one is
  // not held against it (it lists nothing, and the PVC webhook still judges every real resize).
  const parsed = parseVolumeClaimTemplates(
    vm.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION],
  );
  if ('why' in parsed) {
    return invalidVerdict(
      Decision.TemplateInvalid,
      `${PVC_EXPAND_PREFIX}the ${VOLUME_CLAIM_TEMPLATES_ANNOTATION} annotation of VM ${vmKey} cannot be read: ${parsed.why}. ` +
        'It must be a JSON list of PersistentVolumeClaim objects, each with metadata.name, as Harvester writes it.',
      TEMPLATES_FIELD,
    );
  }
  const before = keyed(claimTemplatesOf(oldVm));
  const growing: TemplateGrowth[] = [];
  for (const [name, template] of keyed(parsed.templates)) {
    const previous = before.get(name);
    if (!previous) continue;
    const change = templateChange(name, template, previous, vmKey);
    if (change === null) continue;
    if ('allowed' in change) return change;
    growing.push(change);
  }
  if (growing.length === 0) return allowedVerdict(Decision.NotTemplateChange);
  if (!source.synced()) return notSyncedVerdict(source);
  return judgeGrowths(source, options, vm, vmKey, growing);
}

/** A template that asks for more storage than before (or whose stored size cannot be read). */
interface TemplateGrowth {
  name: string;
  /** The new size as written (its JSON text as ParseQuantity read it), and its value. */
  text: string;
  size: QuantityValue;
}

/**
 * What changed in template `name`: a refusal (an unreadable new size, a smaller one, another
 * storage class), a growth, or null (the same size: nothing to judge). The stored (old) value is
 * judged leniently; a new value the user wrote must be a quantity. A storage request removed from
 * the template counts as zero, as Harvester's Requests.Storage() reads it: smaller than any
 * previous size.
 */
function templateChange(
  name: string,
  template: ClaimTemplate,
  previous: ClaimTemplate,
  vmKey: string,
): AdmissionVerdict | TemplateGrowth | null {
  const oldSize = lenientStorageRequest(previous);
  const read = newStorageRequest(name, template, vmKey);
  if ('allowed' in read) return read;
  const newSize = read.size;
  if (oldSize !== undefined && compareQuantities(newSize, oldSize) < 0) {
    return invalidVerdict(
      Decision.TemplateShrink,
      `${PVC_EXPAND_PREFIX}${HARVESTER_TEMPLATE_SHRINK_MESSAGE}. Volume claim template ${name} of VM ${vmKey} asks for less ` +
        'storage than before; volumes cannot shrink: keep at least the previous size.',
      TEMPLATES_FIELD,
    );
  }
  const oldClass = previous.pvc.spec?.storageClassName ?? null;
  const newClass = template.pvc.spec?.storageClassName ?? null;
  if (oldClass !== newClass) {
    return invalidVerdict(
      Decision.TemplateStorageClassChange,
      `${PVC_EXPAND_PREFIX}storageClassName of volume claim template ${name} of VM ${vmKey} can't be changed ` +
        `(from ${className(oldClass)} to ${className(newClass)}). Keep ${className(oldClass)}; to move the data, create a new volume ` +
        'with the other StorageClass and copy it.',
      TEMPLATES_FIELD,
    );
  }
  // Growing, or an unreadable stored size: the live PVC decides whether it really grows.
  if (oldSize === undefined || compareQuantities(newSize, oldSize) > 0) return read;
  return null;
}

/**
 * The new template's size, read from its raw JSON text as Go's Quantity.UnmarshalJSON reads it
 * (readJsonQuantity); absent counts as zero. One that is no quantity is refused.
 */
function newStorageRequest(
  name: string,
  template: ClaimTemplate,
  vmKey: string,
): AdmissionVerdict | TemplateGrowth {
  try {
    const read = template.storage === undefined ? undefined : readJsonQuantity(template.storage);
    return { name, text: read?.text ?? '0', size: read?.value ?? ZERO };
  } catch (error) {
    if (!isKubeError(error)) throw error;
    return invalidVerdict(
      Decision.TemplateInvalid,
      `${PVC_EXPAND_PREFIX}volume claim template ${name} of VM ${vmKey} has an invalid storage request: ${error.message}. ` +
        'Write a Kubernetes quantity such as 20Gi.',
      TEMPLATES_FIELD,
    );
  }
}

/**
 * Each growing template's live PVC, grown to the new size, judged by decideResize with the VM as
 * it will be stored; the first refusal decides. A PVC not created yet (Harvester creates it with
 * the new size) or already as large is left out.
 */
function judgeGrowths(
  source: ResizeSnapshotSource,
  options: AdmissionOptions,
  vm: VirtualMachine,
  vmKey: string,
  growing: TemplateGrowth[],
): AdmissionVerdict {
  const namespace = vm.metadata?.namespace ?? '';
  const warnings: string[] = [];
  let label: DecisionValue = Decision.NotTemplateChange;
  for (const { name, text, size } of growing) {
    const live = source.getPvc(namespace, name);
    if (!live) continue; // not created yet: Harvester creates it with the new size
    const liveSize = storageRequest(live.spec?.resources?.requests);
    if (liveSize !== undefined && compareQuantities(size, liveSize) <= 0) continue;
    // The text ParseQuantity read: the same value for the snapshot's storageGrows.
    const grown = withStorage(live, text);
    const snapshot = assembleResizeSnapshot(source, live, grown, options);
    const others = snapshot.vms.filter(
      (other) => `${other.metadata?.namespace ?? ''}/${other.metadata?.name ?? ''}` !== vmKey,
    );
    snapshot.vms = [vm, ...others];
    const decision = decideResize(snapshot, options);
    if (!decision.allowed) return toVerdict(decision, TEMPLATES_FIELD);
    if (label === Decision.NotTemplateChange || decision.decision === Decision.Allowed)
      label = decision.decision;
    warnings.push(...decision.warnings);
  }
  return allowedVerdict(label, [...new Set(warnings)]);
}
