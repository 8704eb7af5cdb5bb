import type { AdmissionOptions } from './admission-options.js';
import {
  LONGHORN_VOLUME_LABEL,
  type LonghornEngine,
  type LonghornVolume,
  type StorageClass,
  parseReleaseVersion,
  versionAtLeast,
  type ReleaseVersion,
} from '../model/index.js';
import { harvesterProviderMessage } from './resize-messages.js';
import type { LonghornSnapshot, ResizeFinding } from './resize-snapshot.js';
import { Decision } from './decision.js';

/** Longhorn supports v2 data engine expansion from this release (longhorn/longhorn#8022). */
export const LONGHORN_V2_EXPANSION_SINCE = 'v1.10.0';

/** The spellings Go's strconv.ParseBool reads as true: Longhorn parses the StorageClass parameter `encrypted` with it. */
const GO_TRUE: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

export interface LonghornFacts {
  dataEngine: string;
  /** Where dataEngine came from. */
  engineSource:
    'Volume CR' | 'Engine CR' | 'StorageClass parameter dataEngine' | 'Longhorn default';
  encrypted: boolean;
  frontend: string;
  version?: string;
  /** False when Longhorn objects were not read (not watched): the version is unknown because nobody looked. */
  objectsRead: boolean;
  /** A Volume or an Engine CR of the PV was found. */
  objectsFound: boolean;
  /** Several Volumes record the PV (none named after it): their names. */
  volumesRecordingPv?: string[];
}

/**
 * What the Longhorn objects say about the volume: data engine from the Volume CR, else the
 * Engine CR(s) (any v2 engine makes it v2), else the StorageClass parameter, else v1 (Longhorn's
 * default); encrypted from the Volume or the StorageClass; frontend from the Volume, an Engine
 * or the StorageClass, else blockdev (Longhorn's default).
 */
export function longhornFacts(
  longhorn: LonghornSnapshot | undefined,
  storageClass: StorageClass | null | undefined,
): LonghornFacts {
  const parameters = storageClass?.parameters ?? {};
  const volume = longhorn?.volume ?? undefined;
  const engines = longhorn?.engines ?? [];
  const { dataEngine, engineSource } = dataEngineOf(volume, engines, parameters);
  const frontend =
    volume?.spec?.frontend ||
    engines.find((engine) => engine.spec?.frontend)?.spec?.frontend ||
    parameters['frontend'] ||
    'blockdev';
  const facts: LonghornFacts = {
    dataEngine: (dataEngine ?? 'v1').toLowerCase(),
    engineSource,
    encrypted: volume?.spec?.encrypted === true || GO_TRUE.has(parameters['encrypted'] ?? ''),
    frontend: frontend.toLowerCase(),
    objectsRead: longhorn?.read !== false,
    objectsFound: !!volume || engines.length > 0,
    ...(longhorn?.volumesRecordingPv?.length
      ? { volumesRecordingPv: longhorn.volumesRecordingPv }
      : {}),
  };
  if (longhorn?.version !== undefined) facts.version = longhorn.version;
  return facts;
}

/** The data engine as written (undefined: Longhorn's default) and where it was read. */
function dataEngineOf(
  volume: LonghornVolume | undefined,
  engines: LonghornEngine[],
  parameters: Record<string, string>,
): { dataEngine: string | undefined; engineSource: LonghornFacts['engineSource'] } {
  if (volume?.spec?.dataEngine)
    return { dataEngine: volume.spec.dataEngine, engineSource: 'Volume CR' };
  const engineValues = engines
    .map((engine) => engine.spec?.dataEngine)
    .filter((value): value is string => !!value);
  if (engineValues.length > 0) {
    return {
      dataEngine: engineValues.find((value) => value.toLowerCase() === 'v2') ?? engineValues[0],
      engineSource: 'Engine CR',
    };
  }
  if (parameters['dataEngine'])
    return {
      dataEngine: parameters['dataEngine'],
      engineSource: 'StorageClass parameter dataEngine',
    };
  return { dataEngine: undefined, engineSource: 'Longhorn default' };
}

/** What the rules of decideLonghorn read. */
interface LonghornCase {
  facts: LonghornFacts;
  pvcKey: string;
  stopAdvice: string;
  options: AdmissionOptions;
  pvName: string | undefined;
  /** Harvester's sentence every refusal starts with. */
  first: string;
  /** "data engine v2 (from Volume CR)". */
  engine: string;
}

/** A rule of decideLonghorn: its finding, or null to leave the volume to the next rule. */
type LonghornRule = (longhorn: LonghornCase) => ResizeFinding | null;

/**
 * The rules of decideLonghorn, in order: the data engine must be known; v1 passes; an encrypted
 * v2 volume is refused; the policy allows or denies v2; under `auto`, Longhorn must be recent
 * enough and the frontend not ublk.
 */
const LONGHORN_RULES: readonly LonghornRule[] = [
  unknownEngine,
  v1Engine,
  encryptedV2,
  v2Policy,
  v2TooOldOrUnknown,
  v2Ublk,
];

/**
 * The Longhorn data engine check (only for driver.longhorn.io). `pvName` is the PV the PVC is
 * bound to. When Longhorn objects were read but none belongs to the PV and the StorageClass names
 * no data engine, nothing tells v1 from v2: an internal error (Harvester too refuses when it does
 * not find exactly one Engine), which the API server's caller may retry once Longhorn has
 * recorded the volume.
 */
export function decideLonghorn(
  facts: LonghornFacts,
  pvcKey: string,
  stopAdvice: string,
  options: AdmissionOptions,
  pvName: string | undefined,
): ResizeFinding {
  const longhorn: LonghornCase = {
    facts,
    pvcKey,
    stopAdvice,
    options,
    pvName,
    first: harvesterProviderMessage(pvcKey),
    engine: `data engine ${facts.dataEngine} (from ${facts.engineSource})`,
  };
  for (const rule of LONGHORN_RULES) {
    const finding = rule(longhorn);
    if (finding) return finding;
  }
  return {
    check: 'longhorn',
    outcome: 'pass',
    decision: Decision.Allowed,
    message: `Longhorn ${longhorn.engine} with frontend ${facts.frontend} on Longhorn ${facts.version}: v2 online expansion is supported.`,
  };
}

/**
 * Longhorn objects were read, none belongs to the PV, and the StorageClass names no data engine:
 * nothing tells v1 from v2. Policy allow admits every data engine; only an encrypted volume would
 * still be refused (if it were v2), so only then does the unknown engine matter.
 */
function unknownEngine({
  facts,
  pvcKey,
  stopAdvice,
  options,
  pvName,
}: LonghornCase): ResizeFinding | null {
  if (!facts.objectsRead || facts.objectsFound || facts.engineSource !== 'Longhorn default')
    return null;
  if (options.longhornV2Expansion === 'allow' && !facts.encrypted) {
    return {
      check: 'longhorn',
      outcome: 'pass',
      decision: Decision.Allowed,
      message:
        `Longhorn data engine unknown (no Longhorn Volume or Engine found for PV ${pvName ?? '(none)'} in ${options.longhornNamespace}): ` +
        'allowed by policy longhornV2Expansion=allow, which admits any data engine of an unencrypted volume.',
    };
  }
  return {
    check: 'longhorn',
    outcome: 'error',
    decision: Decision.LonghornVolumeUnknown,
    message: facts.volumesRecordingPv
      ? `internal error: the data engine of PVC ${pvcKey} cannot be determined: no Longhorn Volume in ${options.longhornNamespace} is named ${pvName ?? ''}, ` +
        `and ${facts.volumesRecordingPv.join(', ')} all record PV ${pvName ?? ''} (status.kubernetesStatus.pvName), so none can be taken for it. ` +
        `Find which of them the PV's volumeHandle names and correct the others in Longhorn, or ${stopAdvice}.`
      : pvName
        ? `internal error: the data engine of PVC ${pvcKey} cannot be determined: no Longhorn Volume in ${options.longhornNamespace} is named ${pvName} or ` +
          `records PV ${pvName} (status.kubernetesStatus.pvName), no Engine is labelled ${LONGHORN_VOLUME_LABEL}=${pvName}, and its StorageClass ` +
          `sets no dataEngine parameter. Retry once Longhorn has recorded the volume, or ${stopAdvice}.`
        : `internal error: the data engine of PVC ${pvcKey} cannot be determined: it is not bound to a PV. Retry once it is bound, or ${stopAdvice}.`,
  };
}

/** Every data engine but v2 grows online. */
function v1Engine({ facts, engine }: LonghornCase): ResizeFinding | null {
  if (facts.dataEngine === 'v2') return null;
  return {
    check: 'longhorn',
    outcome: 'pass',
    decision: Decision.Allowed,
    message: `Longhorn ${engine} supports online expansion.`,
  };
}

/** Longhorn cannot grow an encrypted v2 volume under any policy. */
function encryptedV2({ facts, first }: LonghornCase): ResizeFinding | null {
  if (!facts.encrypted) return null;
  return {
    check: 'longhorn',
    outcome: 'refuse',
    decision: Decision.LonghornV2Encrypted,
    message:
      `${first}. It is an encrypted Longhorn v2 volume (${facts.engineSource}), and Longhorn cannot grow those (the dm-crypt device does ` +
      `not grow). Create a larger volume and copy the data, or use a v1 data engine StorageClass.`,
  };
}

/** Policy allow admits a v2 volume, deny refuses it; auto leaves it to the version and frontend. */
function v2Policy({ facts, options, first, engine }: LonghornCase): ResizeFinding | null {
  if (options.longhornV2Expansion === 'allow') {
    return {
      check: 'longhorn',
      outcome: 'pass',
      decision: Decision.Allowed,
      message: `Longhorn ${engine}: allowed by policy longhornV2Expansion=allow.`,
    };
  }
  if (options.longhornV2Expansion === 'deny') {
    return {
      check: 'longhorn',
      outcome: 'refuse',
      decision: Decision.LonghornV2,
      message:
        `${first}. It is a Longhorn v2 data engine volume (${facts.engineSource}) and policy longhornV2Expansion=deny refuses their expansion. ` +
        `Use a v1 data engine StorageClass, or set longhornV2Expansion to auto on Longhorn ${LONGHORN_V2_EXPANSION_SINCE} or later.`,
    };
  }
  return null;
}

/** Under auto, Longhorn grows v2 volumes from LONGHORN_V2_EXPANSION_SINCE on: an older or unknown version is refused. */
function v2TooOldOrUnknown({ facts, options, first }: LonghornCase): ResizeFinding | null {
  if (versionAtLeast(facts.version, LONGHORN_V2_EXPANSION_SINCE)) return null;
  const why = `${first}. It is a Longhorn v2 data engine volume (${facts.engineSource}): Longhorn grows those from ${LONGHORN_V2_EXPANSION_SINCE} on, `;
  if (!facts.objectsRead) {
    // Nobody read the Setting: it may exist with a new enough version, so "upgrade" would mislead.
    return {
      check: 'longhorn',
      outcome: 'refuse',
      decision: Decision.LonghornV2Version,
      message:
        `${why}and the Longhorn version was not read: Longhorn objects are not read (--longhorn off, or --longhorn auto while ` +
        'the cluster does not serve longhorn.io/v1beta2 or voe cannot list them yet, as its log says). Run with --longhorn auto or on ' +
        `(and the Longhorn Role of manifests/webhook-rbac.yaml) to read Setting ${options.longhornNamespace}/${options.longhornVersionSetting}, ` +
        `or, if Longhorn is ${LONGHORN_V2_EXPANSION_SINCE} or later, with --longhorn-v2-expansion allow (no version or frontend check); ` +
        `or use a v1 data engine StorageClass.`,
    };
  }
  return {
    check: 'longhorn',
    outcome: 'refuse',
    decision: Decision.LonghornV2Version,
    message: `${why}and ${versionTooOldOrUnknown(facts.version, options)}`,
  };
}

/** Longhorn cannot grow a v2 volume with the ublk frontend online. */
function v2Ublk({ facts, first, stopAdvice }: LonghornCase): ResizeFinding | null {
  if (facts.frontend !== 'ublk') return null;
  return {
    check: 'longhorn',
    outcome: 'refuse',
    decision: Decision.LonghornV2Ublk,
    message:
      `${first}. It is a Longhorn v2 volume with the ublk frontend, which Longhorn cannot grow online. ` +
      `${stopAdvice.charAt(0).toUpperCase()}${stopAdvice.slice(1)}.`,
  };
}

/**
 * Why the Longhorn version did not pass, and what to do: a release older than the minimum can
 * be upgraded; a pre-release of the minimum or later, a build whose name is no version (e.g.
 * "master-head"), an empty value or a missing Setting cannot be compared, and only an operator
 * who knows the build can say it grows v2 volumes (policy allow).
 */
function versionTooOldOrUnknown(
  version: string | undefined,
  options: Pick<AdmissionOptions, 'longhornNamespace' | 'longhornVersionSetting'>,
): string {
  const setting = `Setting ${options.longhornNamespace}/${options.longhornVersionSetting}`;
  const orV1 = 'or use a v1 data engine StorageClass.';
  const vouch = `If this Longhorn build grows v2 volumes (${LONGHORN_V2_EXPANSION_SINCE} or later), run voe with --longhorn-v2-expansion allow; ${orV1}`;
  if (version === undefined)
    return `the Longhorn version is unknown (${setting} not found). ${vouch}`;
  if (version.trim() === '')
    return `the Longhorn version is unknown (${setting} has no value). ${vouch}`;
  const parsed = parseReleaseVersion(version);
  const floor = parseReleaseVersion(LONGHORN_V2_EXPANSION_SINCE) as ReleaseVersion;
  if (!parsed)
    return `Longhorn ${version} is installed, which is no version voe can compare. ${vouch}`;
  const atLeastFloor =
    parsed.major !== floor.major
      ? parsed.major > floor.major
      : parsed.minor !== floor.minor
        ? parsed.minor > floor.minor
        : parsed.patch >= floor.patch;
  if (atLeastFloor) {
    return `Longhorn ${version} is installed, a pre-release or development build: voe counts releases only. Upgrade Longhorn to a release, or, ${vouch.charAt(0).toLowerCase()}${vouch.slice(1)}`;
  }
  return `Longhorn ${version} is installed. Upgrade Longhorn to ${LONGHORN_V2_EXPANSION_SINCE} or later, ${orV1}`;
}
