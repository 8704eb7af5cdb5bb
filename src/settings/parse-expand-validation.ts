import type { HarvesterSetting } from './harvester-setting.js';
import { EXPAND_VALIDATION_SETTING_NAME } from './harvester-setting.js';
import { parseDriverMap } from './parse-driver-map.js';

/** The effective csi-online-expand-validation: which CSI drivers are validated for online expansion. */
export interface ExpandValidation {
  /** Effective entries after `value` overlaid `default`. */
  readonly drivers: ReadonlyMap<string, boolean>;
  /** True when the driver is listed with `true`; a missing key is false (as in Harvester). */
  allows(driver: string): boolean;
}

/**
 * Parses the Setting exactly as Harvester does: `default` first, then `value` into the same
 * map so `value` keys override `default` keys; a missing key is false; empty strings add
 * nothing; invalid JSON or a non-boolean entry throws SettingInvalidError.
 */
export function parseExpandValidation(setting: Pick<HarvesterSetting, 'default' | 'value' | 'metadata'>): ExpandValidation {
  const name = setting.metadata?.name ?? EXPAND_VALIDATION_SETTING_NAME;
  const drivers = new Map<string, boolean>();
  for (const [key, entry] of parseDriverMap(setting.default, 'default', name)) drivers.set(key, entry);
  for (const [key, entry] of parseDriverMap(setting.value, 'value', name)) drivers.set(key, entry);
  return {
    drivers,
    allows: (driver: string) => drivers.get(driver) === true,
  };
}
