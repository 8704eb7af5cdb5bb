export type { AdmissionRequest, AdmissionVerdict, Validator, GroupVersionKind, GroupVersionResource } from './validator.js';
