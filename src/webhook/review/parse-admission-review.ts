import { describeJsonType, isJsonObject } from '../../errors/index.js';
import type {
  AdmissionRequest,
  GroupVersionKind,
  GroupVersionResource,
} from '../../admission/index.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';
export const ADMISSION_REVIEW_KIND = 'AdmissionReview';

export type ParsedAdmissionReview =
  { ok: true; request: AdmissionRequest } | { ok: false; message: string };

const OPERATIONS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

type Json = Record<string, unknown>;

/**
 * A received value as a message may show it: a short name-like string quoted (e.g. another
 * apiVersion), anything else only by its type, so no request content (a token, a secret) reaches
 * the logs or the answer.
 */
function shown(value: unknown): string {
  if (typeof value === 'string' && value.length <= 64 && /^[A-Za-z0-9._/-]*$/.test(value))
    return JSON.stringify(value);
  return describeJsonType(value);
}

function fail(message: string): ParsedAdmissionReview {
  return { ok: false, message };
}

/** "" or a problem with field `path` of `holder` that must be a string (non-empty when required). */
function checkString(holder: Json, key: string, path: string, required: boolean): string {
  const value = holder[key];
  if (value === undefined && !required) return '';
  if (typeof value !== 'string') return `${path} must be a string, got ${describeJsonType(value)}`;
  return '';
}

function checkGroupVersion(value: unknown, path: string, last: 'kind' | 'resource'): string {
  if (!isJsonObject(value))
    return `${path} must be an object with group, version and ${last}, got ${describeJsonType(value)}`;
  for (const key of ['group', 'version', last]) {
    const problem = checkString(value, key, `${path}.${key}`, true);
    if (problem) return problem;
  }
  if (value['version'] === '' || value[last] === '')
    return `${path}.version and ${path}.${last} must not be empty`;
  return '';
}

function checkOptionalObject(holder: Json, key: string): string {
  const value = holder[key];
  if (value === undefined || value === null || isJsonObject(value)) return '';
  return `request.${key} must be an object or null, got ${describeJsonType(value)}`;
}

function checkUserInfo(value: unknown): string {
  if (value === undefined) return '';
  if (!isJsonObject(value))
    return `request.userInfo must be an object, got ${describeJsonType(value)}`;
  for (const key of ['username', 'uid']) {
    const problem = checkString(value, key, `request.userInfo.${key}`, false);
    if (problem) return problem;
  }
  const groups = value['groups'];
  if (
    groups !== undefined &&
    !(Array.isArray(groups) && groups.every((g) => typeof g === 'string'))
  ) {
    return 'request.userInfo.groups must be an array of strings';
  }
  return '';
}

/**
 * Checks that `body` (already JSON-decoded) is an admission.k8s.io/v1 AdmissionReview whose
 * request has the fields and types validators rely on. Pure: never throws, never reads anything else.
 * The returned request keeps only the documented fields (object/oldObject by reference).
 */
export function parseAdmissionReview(body: unknown): ParsedAdmissionReview {
  if (!isJsonObject(body))
    return fail(
      `the body must be a JSON object (an AdmissionReview), got ${describeJsonType(body)}`,
    );
  if (body['apiVersion'] !== ADMISSION_API_VERSION) {
    return fail(
      `apiVersion must be "${ADMISSION_API_VERSION}" (set admissionReviewVersions: [v1] in the webhook configuration), got ${shown(body['apiVersion'])}`,
    );
  }
  if (body['kind'] !== ADMISSION_REVIEW_KIND) {
    return fail(`kind must be "${ADMISSION_REVIEW_KIND}", got ${shown(body['kind'])}`);
  }
  const request = body['request'];
  if (!isJsonObject(request))
    return fail(`request must be an object, got ${describeJsonType(request)}`);
  const uid = request['uid'];
  if (typeof uid !== 'string' || uid === '') return fail('request.uid must be a non-empty string');
  const problems = [
    checkGroupVersion(request['kind'], 'request.kind', 'kind'),
    checkGroupVersion(request['resource'], 'request.resource', 'resource'),
    request['requestKind'] === undefined
      ? ''
      : checkGroupVersion(request['requestKind'], 'request.requestKind', 'kind'),
    checkString(request, 'subResource', 'request.subResource', false),
    checkString(request, 'name', 'request.name', false),
    checkString(request, 'namespace', 'request.namespace', false),
    typeof request['operation'] === 'string' && OPERATIONS.has(request['operation'])
      ? ''
      : 'request.operation must be one of CREATE, UPDATE, DELETE, CONNECT',
    checkUserInfo(request['userInfo']),
    checkOptionalObject(request, 'object'),
    checkOptionalObject(request, 'oldObject'),
    request['dryRun'] === undefined || typeof request['dryRun'] === 'boolean'
      ? ''
      : 'request.dryRun must be a boolean',
  ];
  const problem = problems.find((p) => p !== '');
  if (problem) return fail(problem);

  const parsed: AdmissionRequest = {
    uid,
    kind: request['kind'] as GroupVersionKind,
    resource: request['resource'] as GroupVersionResource,
    operation: request['operation'] as AdmissionRequest['operation'],
  };
  if (request['requestKind'] !== undefined)
    parsed.requestKind = request['requestKind'] as GroupVersionKind;
  if (request['subResource'] !== undefined) parsed.subResource = request['subResource'] as string;
  if (request['name'] !== undefined) parsed.name = request['name'] as string;
  if (request['namespace'] !== undefined) parsed.namespace = request['namespace'] as string;
  if (request['userInfo'] !== undefined)
    parsed.userInfo = request['userInfo'] as NonNullable<AdmissionRequest['userInfo']>;
  if (request['object'] !== undefined)
    parsed.object = request['object'] as AdmissionRequest['object'];
  if (request['oldObject'] !== undefined)
    parsed.oldObject = request['oldObject'] as AdmissionRequest['oldObject'];
  if (request['dryRun'] !== undefined) parsed.dryRun = request['dryRun'] as boolean;
  return { ok: true, request: parsed };
}
