/**
 * The contract between the admission decisions (validators) and the HTTPS server.
 * The server parses and checks the AdmissionReview, finds the validator by path,
 * and turns its verdict into the AdmissionReview response.
 */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  object?: Record<string, unknown> | null;
  oldObject?: Record<string, unknown> | null;
  dryRun?: boolean;
}

export interface AdmissionVerdict {
  allowed: boolean;
  /** HTTP-like status code for refusals: 422 for policy, 500 for internal errors. */
  code?: number;
  /** Kubernetes StatusReason, e.g. "Invalid" or "InternalError". */
  reason?: string;
  /** Shown to the user as is (Harvester's UI displays it). */
  message?: string;
  /** Admission warnings (each <= 120 characters). */
  warnings?: string[];
  /** A short stable label for metrics and logs, e.g. "not-resize", "gate-missing". */
  decision: string;
  /** 422 Invalid refusals: the field the cause names, e.g. "spec.resources.requests.storage". */
  field?: string;
}

export interface Validator {
  /** Metric label and log name, e.g. "pvc-resize". */
  readonly name: string;
  /** URL path the API server calls, e.g. "/validate/pvc-resize". */
  readonly path: string;
  validate(request: AdmissionRequest): AdmissionVerdict | Promise<AdmissionVerdict>;
}
