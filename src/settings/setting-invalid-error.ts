import { VoeError } from '../errors/index.js';

/** `SETTING_INVALID_JSON`: not JSON or not an object. `SETTING_INVALID_VALUE`: an entry is not a boolean. */
export type SettingInvalidCode = 'SETTING_INVALID_JSON' | 'SETTING_INVALID_VALUE';

/** A field of a Harvester Setting cannot be parsed the way Harvester parses it. */
export class SettingInvalidError extends VoeError {
  declare readonly code: SettingInvalidCode;

  constructor(
    code: SettingInvalidCode,
    message: string,
    details: { setting: string; field: string; key?: string },
  ) {
    super(code, message, { details });
  }
}
