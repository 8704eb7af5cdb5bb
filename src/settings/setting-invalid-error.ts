import { VoeError } from '../errors/index.js';

/**
 * `SETTING_INVALID_JSON`: not JSON or not an object. `SETTING_INVALID_VALUE`: an entry is not a
 * boolean (docs/errors.md, section "admission").
 */
export const SettingInvalidCode = {
  InvalidJson: 'SETTING_INVALID_JSON',
  InvalidValue: 'SETTING_INVALID_VALUE',
} as const;

export type SettingInvalidCode = (typeof SettingInvalidCode)[keyof typeof SettingInvalidCode];

/** A field of a Harvester Setting cannot be parsed the way Harvester parses it. */
export class SettingInvalidError extends VoeError<SettingInvalidCode> {
  constructor(
    code: SettingInvalidCode,
    message: string,
    details: { setting: string; field: string; key?: string },
  ) {
    super(code, message, { details });
  }
}
