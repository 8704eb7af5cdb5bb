import {
  LONGHORN_DRIVER,
  parseDriverMap,
  parseExpandValidation,
  SettingInvalidError,
  type HarvesterSetting,
} from '../../settings/index.js';
import type { AdmissionOptions } from '../admission-options.js';
import type { CsiDriverSource } from '../csi-driver-source.js';
import { warning } from '../resize-messages.js';
import { allowedVerdict, internalErrorVerdict, invalidVerdict } from './to-verdict.js';
import type { AdmissionRequest, AdmissionVerdict, Validator } from './validator.js';
import { Decision } from '../decision.js';

export const EXPAND_SETTING_PATH = '/validate/setting';

const MAX_DRIVER_WARNINGS = 5;

/**
 * Validates CREATE/UPDATE of the csi-online-expand-validation Setting (other Settings and
 * operations are allowed): `value` and `default` must each be a JSON object of driver -> boolean
 * (or empty), by the strict write rule parseDriverMap: JSON `null`, whole or as an entry, is
 * refused here although the resize path reads it as Harvester does (unmarshalDriverMap);
 * `driver.longhorn.io: false` is refused (Harvester protects it only in its UI), and so is a
 * write that leaves it out of both fields (read as false); a driver with
 * no CSIDriver object is accepted with a warning. An UPDATE that leaves a field as it was is not
 * refused for that field's content (it is warned about instead): it was stored before voe judged
 * it, and refusing would block every later update, Harvester's own controller's included.
 */
export function createExpandSettingValidator(deps: {
  csiDrivers: CsiDriverSource;
  options: Pick<AdmissionOptions, 'settingName'>;
}): Validator {
  const { csiDrivers, options } = deps;
  return {
    name: 'setting',
    path: EXPAND_SETTING_PATH,
    validate(request: AdmissionRequest): AdmissionVerdict {
      const setting = request.object as HarvesterSetting | null | undefined;
      if (
        (request.operation !== 'CREATE' && request.operation !== 'UPDATE') ||
        request.subResource ||
        !setting ||
        setting.metadata?.name !== options.settingName
      ) {
        return allowedVerdict(Decision.NotExpandSetting);
      }
      const judged = judgeSetting(setting, keptFields(request, setting), options.settingName);
      if ('allowed' in judged) return judged;
      return allowedVerdict(Decision.SettingValid, [
        ...judged.warnings,
        ...driverWarnings(judged.drivers, csiDrivers),
      ]);
    },
  };
}

type SettingField = 'default' | 'value';

/** What a write of the Setting may have: the warnings about what it kept, and every driver it names. */
interface SettingJudgement {
  warnings: string[];
  drivers: string[];
}

/**
 * Which fields an UPDATE leaves as they were. Such a field is not refused for what it already
 * held (stored before voe was installed: Harvester's API accepts it), or Harvester's own
 * controller could not update the Setting any more; the answer warns instead.
 */
function keptFields(
  request: AdmissionRequest,
  setting: HarvesterSetting,
): (field: SettingField) => boolean {
  const previous =
    request.operation === 'UPDATE'
      ? (request.oldObject as HarvesterSetting | null | undefined)
      : undefined;
  return (field) =>
    previous?.metadata?.name === setting.metadata?.name && previous?.[field] === setting[field];
}

/** Each field by the write rule (judgeField), then Longhorn's entry over both (longhornLeftOut). */
function judgeSetting(
  setting: HarvesterSetting,
  kept: (field: SettingField) => boolean,
  settingName: string,
): AdmissionVerdict | SettingJudgement {
  const warnings: string[] = [];
  const drivers = new Set<string>();
  for (const field of ['default', 'value'] as const) {
    const judged = judgeField(setting, field, kept(field), settingName);
    if ('allowed' in judged) return judged;
    warnings.push(...judged.warnings);
    for (const driver of judged.drivers) drivers.add(driver);
  }
  const leftOut = longhornLeftOut(setting, kept, settingName);
  if (leftOut !== undefined && typeof leftOut !== 'string') return leftOut;
  return {
    warnings: leftOut === undefined ? warnings : [...warnings, leftOut],
    drivers: [...drivers],
  };
}

/**
 * One field by the strict write rule (parseDriverMap), and `driver.longhorn.io: false` refused;
 * a field the write kept as it was is warned about instead.
 */
function judgeField(
  setting: HarvesterSetting,
  field: SettingField,
  kept: boolean,
  settingName: string,
): AdmissionVerdict | SettingJudgement {
  let entries: Map<string, boolean>;
  try {
    entries = parseDriverMap(setting[field], field, settingName);
  } catch (error) {
    if (!(error instanceof SettingInvalidError))
      return internalErrorVerdict(
        Decision.InternalError,
        `internal error: ${(error as Error).message}`,
      );
    if (!kept)
      return invalidVerdict(Decision.SettingInvalid, `${error.message} (${error.code})`, field);
    return {
      warnings: [
        warning(`field "${field}" is not valid (${error.code}) and was left as it was; fix it`),
      ],
      drivers: [],
    };
  }
  const drivers = [...entries.keys()];
  if (entries.get(LONGHORN_DRIVER) !== false) return { warnings: [], drivers };
  if (!kept) {
    return invalidVerdict(
      Decision.SettingLonghornDisabled,
      `Setting ${settingName} field "${field}" sets "${LONGHORN_DRIVER}" to false. Longhorn supports online ` +
        `expansion and Harvester keeps it enabled; remove the entry or set it to true.`,
      field,
    );
  }
  return {
    warnings: [
      warning(
        `field "${field}" sets "${LONGHORN_DRIVER}" to false and was left as it was; set it to true`,
      ),
    ],
    drivers,
  };
}

/**
 * Leaving Longhorn out disables it as surely as `false`: a driver missing from both fields is
 * read as false (e.g. a Setting created with only `value`, or `default` emptied). Judged on what
 * the resize path will read, which is more lenient than judgeField's rule (a kept field that rule
 * refuses, such as one with a `null` entry, may still be read); when it cannot read the Setting
 * at all, it refuses every resize it governs and Longhorn's entry changes nothing. A refusal, a
 * warning when both fields were kept, or undefined.
 */
function longhornLeftOut(
  setting: HarvesterSetting,
  kept: (field: SettingField) => boolean,
  settingName: string,
): AdmissionVerdict | string | undefined {
  if (!readsWithoutLonghorn(setting)) return undefined;
  if (!kept('default') || !kept('value')) {
    return invalidVerdict(
      Decision.SettingLonghornDisabled,
      `Setting ${settingName} would leave "${LONGHORN_DRIVER}" out of both "default" and "value", and a driver missing ` +
        `from both counts as false: Longhorn volumes could no longer expand online. Add "${LONGHORN_DRIVER}":true to "value" ` +
        `(Harvester's "default" is {"${LONGHORN_DRIVER}":true}).`,
      'value',
    );
  }
  return warning(
    `"${LONGHORN_DRIVER}" was already in neither field (read as false); add "${LONGHORN_DRIVER}":true to "value"`,
  );
}

/** Whether the resize path reads this Setting (parseExpandValidation) and finds no Longhorn entry in it. */
function readsWithoutLonghorn(setting: HarvesterSetting): boolean {
  try {
    return !parseExpandValidation(setting).drivers.has(LONGHORN_DRIVER);
  } catch (error) {
    if (error instanceof SettingInvalidError) return false;
    throw error;
  }
}

function driverWarnings(drivers: string[], csiDrivers: CsiDriverSource): string[] {
  if (drivers.length === 0) return [];
  if (!csiDrivers.synced())
    return [warning('CSIDriver cache not synced yet; the driver names were not checked')];
  const unknown = drivers.filter((driver) => !csiDrivers.getCsiDriver(driver));
  const warnings = unknown
    .slice(0, MAX_DRIVER_WARNINGS)
    .map((driver) =>
      warning(`no CSIDriver named "${driver}" exists; check the driver name (accepted anyway)`),
    );
  if (unknown.length > MAX_DRIVER_WARNINGS)
    warnings.push(`${unknown.length - MAX_DRIVER_WARNINGS} more drivers have no CSIDriver object`);
  return warnings;
}
