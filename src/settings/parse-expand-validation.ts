import type { HarvesterSetting } from './harvester-setting.js';
import { EXPAND_VALIDATION_SETTING_NAME } from './harvester-setting.js';
import { unmarshalDriverMap } from './parse-driver-map.js';

/** The effective csi-online-expand-validation: which CSI drivers are validated for online expansion. */
export interface ExpandValidation {
  /** Effective entries after `value` overlaid `default`. */
  readonly drivers: ReadonlyMap<string, boolean>;
  /** True when the driver is listed with `true`; a missing key is false (as in Harvester). */
  allows(driver: string): boolean;
}

/**
 * Parses the Setting exactly as Harvester does (Go's json.Unmarshal into one map[string]bool):
 * `default` first, then `value` into the same map so `value` keys override `default` keys; a
 * missing key is false; empty strings add nothing; JSON `null` empties the map (Longhorn's
 * entry from `default` included) and a `null` entry is false; invalid JSON, a field that is not
 * an object or an entry neither boolean nor null throws SettingInvalidError. For the resize
 * decision; the Setting validator (writes) is stricter: parseDriverMap.
 */
export function parseExpandValidation(
  setting: Pick<HarvesterSetting, 'default' | 'value' | 'metadata'>,
): ExpandValidation {
  const name = setting.metadata?.name ?? EXPAND_VALIDATION_SETTING_NAME;
  const drivers = new Map<string, boolean>();
  unmarshalDriverMap(drivers, setting.default, 'default', name);
  unmarshalDriverMap(drivers, setting.value, 'value', name);
  return {
    drivers,
    allows: (driver: string) => drivers.get(driver) === true,
  };
}
