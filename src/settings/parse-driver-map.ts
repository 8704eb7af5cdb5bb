import { excerpt } from '../errors/index.js';
import { SettingInvalidError } from './setting-invalid-error.js';

/*
 * Two readers of one field (`default` or `value`) of the csi-online-expand-validation Setting,
 * on purpose not the same:
 * - parseDriverMap: the Setting VALIDATOR's rule for writes (a JSON object of CSI driver name ->
 *   boolean, or an empty string); JSON `null`, top level or as an entry, is refused.
 * - unmarshalDriverMap: the RESIZE DECISION's reader, exactly what Go's json.Unmarshal into
 *   Harvester's map[string]bool does, so a stored Setting means here what it means to Harvester.
 */

/**
 * The Setting validator's (write) rule for one field: a JSON object of CSI driver name ->
 * boolean; an empty (or missing) string means no entries. JSON `null` (the whole field or an
 * entry) is refused although Harvester would read it (see unmarshalDriverMap): written by
 * mistake it would silently disable drivers. Anything else invalid throws SettingInvalidError.
 * Not for judging resizes: use unmarshalDriverMap there.
 */
export function parseDriverMap(
  text: string | undefined,
  field: string,
  setting: string,
): Map<string, boolean> {
  const drivers = new Map<string, boolean>();
  if (text === undefined || text === '') return drivers;
  const parsed = readJson(text, field, setting);
  if (parsed === null) throw notAnObject(field, setting);
  for (const [key, entry] of objectEntries(parsed, field, setting)) {
    if (typeof entry !== 'boolean') throw notABoolean(key, entry, field, setting);
    drivers.set(key, entry);
  }
  return drivers;
}

/**
 * The resize decision's reader: unmarshals one field into `drivers` as Go's json.Unmarshal does
 * into Harvester's map[string]bool (checked with Go):
 * - an empty (or missing) string changes nothing (Harvester skips empty strings);
 * - JSON `null` sets the map to nil: every entry is removed, also those `default` added;
 * - an object sets each of its keys, overriding earlier ones; an entry `null` sets the key to
 *   false (Go's zero value), overriding a `true` from `default`;
 * - anything else (not JSON, not an object, an entry neither boolean nor null) throws
 *   SettingInvalidError, as Unmarshal returns an error (Harvester: internal error).
 * On an error `drivers` is left unchanged.
 */
export function unmarshalDriverMap(
  drivers: Map<string, boolean>,
  text: string | undefined,
  field: string,
  setting: string,
): void {
  if (text === undefined || text === '') return;
  const parsed = readJson(text, field, setting);
  if (parsed === null) {
    drivers.clear();
    return;
  }
  const entries = objectEntries(parsed, field, setting).map(([key, entry]): [string, boolean] => {
    if (entry === null) return [key, false];
    if (typeof entry !== 'boolean') throw notABoolean(key, entry, field, setting);
    return [key, entry];
  });
  for (const [key, entry] of entries) drivers.set(key, entry);
}

function readJson(text: unknown, field: string, setting: string): unknown {
  if (typeof text !== 'string') {
    throw new SettingInvalidError(
      'SETTING_INVALID_JSON',
      `Setting ${setting} field "${field}" must be a string holding a JSON object of CSI driver name to true/false, ` +
        `e.g. "{\\"nfs.csi.k8s.io\\":true}", or an empty string.`,
      { setting, field },
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SettingInvalidError(
      'SETTING_INVALID_JSON',
      `Setting ${setting} field "${field}" is not valid JSON (${(error as Error).message}); ` +
        `write a JSON object of CSI driver name to true/false, e.g. {"nfs.csi.k8s.io":true}, or an empty string.`,
      { setting, field },
    );
  }
}

function objectEntries(parsed: unknown, field: string, setting: string): Array<[string, unknown]> {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw notAnObject(field, setting);
  return Object.entries(parsed);
}

function notAnObject(field: string, setting: string): SettingInvalidError {
  return new SettingInvalidError(
    'SETTING_INVALID_JSON',
    `Setting ${setting} field "${field}" must be a JSON object of CSI driver name to true/false, ` +
      `e.g. {"nfs.csi.k8s.io":true}, or an empty string.`,
    { setting, field },
  );
}

function notABoolean(
  key: string,
  entry: unknown,
  field: string,
  setting: string,
): SettingInvalidError {
  return new SettingInvalidError(
    'SETTING_INVALID_VALUE',
    `Setting ${setting} field "${field}" maps ${excerpt(key)} to ${excerpt(entry)}; ` +
      `each CSI driver must map to true or false.`,
    { setting, field, key },
  );
}
