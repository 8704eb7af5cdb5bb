export {
  type HarvesterSetting,
  EXPAND_VALIDATION_SETTING_NAME,
  EXPAND_VALIDATION_HARVESTER_DEFAULT,
  LONGHORN_DRIVER,
} from './harvester-setting.js';
export { SettingInvalidError, SettingInvalidCode } from './setting-invalid-error.js';
export { parseDriverMap, unmarshalDriverMap } from './parse-driver-map.js';
export { parseExpandValidation, type ExpandValidation } from './parse-expand-validation.js';
