import {
  EXPAND_VALIDATION_HARVESTER_DEFAULT,
  parseExpandValidation,
  type ExpandValidation,
  type HarvesterSetting,
  type SettingInvalidError,
} from '../../settings/index.js';

/** The host's csi-online-expand-validation Setting as the expansion decision reads it. */
export type ExpandSetting =
  | { state: 'parsed'; validation: ExpandValidation }
  /** Not on the host: Harvester's default ({"driver.longhorn.io":true}) applies, as in voe's webhook. */
  | { state: 'missing'; validation: ExpandValidation }
  | { state: 'invalid'; error: SettingInvalidError };

/** Reads the Setting (undefined: not found) exactly as Harvester and voe's webhook do. */
export function readExpandSetting(setting: HarvesterSetting | undefined): ExpandSetting {
  if (setting === undefined)
    return {
      state: 'missing',
      validation: parseExpandValidation({ default: EXPAND_VALIDATION_HARVESTER_DEFAULT }),
    };
  try {
    return { state: 'parsed', validation: parseExpandValidation(setting) };
  } catch (error) {
    return { state: 'invalid', error: error as SettingInvalidError };
  }
}
