export {
  EXPAND_VALIDATION_HARVESTER_DEFAULT,
  EXPAND_VALIDATION_SETTING_NAME,
  LONGHORN_DRIVER,
  type HarvesterSetting,
} from './harvester-setting.js';
export { parseDriverMap } from './parse-driver-map.js';
export { parseExpandValidation, type ExpandValidation } from './parse-expand-validation.js';
export { SettingInvalidError } from './setting-invalid-error.js';
