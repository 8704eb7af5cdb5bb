import { excerpt } from '../errors/index.js';
import { SettingInvalidError } from './setting-invalid-error.js';

/**
 * Parses one field (`default` or `value`) of the csi-online-expand-validation Setting: a JSON
 * object of CSI driver name -> boolean. An empty (or missing) string means no entries, as
 * Harvester skips empty strings before unmarshalling. Anything else throws SettingInvalidError.
 */
export function parseDriverMap(text: string | undefined, field: string, setting: string): Map<string, boolean> {
  const drivers = new Map<string, boolean>();
  if (text === undefined || text === '') return drivers;
  if (typeof text !== 'string') {
    throw new SettingInvalidError('SETTING_INVALID_JSON',
      `Setting ${setting} field "${field}" must be a string holding a JSON object of CSI driver name to true/false, ` +
      `e.g. "{\\"nfs.csi.k8s.io\\":true}", or an empty string.`,
      { setting, field });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SettingInvalidError('SETTING_INVALID_JSON',
      `Setting ${setting} field "${field}" is not valid JSON (${(error as Error).message}); ` +
      `write a JSON object of CSI driver name to true/false, e.g. {"nfs.csi.k8s.io":true}, or an empty string.`,
      { setting, field });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SettingInvalidError('SETTING_INVALID_JSON',
      `Setting ${setting} field "${field}" must be a JSON object of CSI driver name to true/false, ` +
      `e.g. {"nfs.csi.k8s.io":true}, or an empty string.`,
      { setting, field });
  }
  for (const [key, entry] of Object.entries(parsed)) {
    if (typeof entry !== 'boolean') {
      throw new SettingInvalidError('SETTING_INVALID_VALUE',
        `Setting ${setting} field "${field}" maps ${excerpt(key)} to ${excerpt(entry)}; ` +
        `each CSI driver must map to true or false.`,
        { setting, field, key });
    }
    drivers.set(key, entry);
  }
  return drivers;
}
