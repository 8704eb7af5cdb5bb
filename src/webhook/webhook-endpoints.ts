/** The webhooks voe serves: the name is the metric label, the path what the API server calls. */
export const WEBHOOK_ENDPOINTS = {
  pvcResize: { name: 'pvc-resize', path: '/validate/pvc-resize' },
  vm: { name: 'vm', path: '/validate/vm' },
  setting: { name: 'setting', path: '/validate/setting' },
} as const;

export type WebhookEndpointKey = keyof typeof WEBHOOK_ENDPOINTS;

export { VOLUME_CLAIM_TEMPLATES_ANNOTATION } from './vm-claims.js';
