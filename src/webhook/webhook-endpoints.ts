/**
 * The webhooks voe serves: the name is the metric label, the path what the API server calls, and
 * webhookName the name registered in the ValidatingWebhookConfiguration (the API server quotes it
 * in a refusal: `admission webhook "<webhookName>" denied the request: <message>`).
 */
export const WEBHOOK_ENDPOINTS = {
  pvcResize: {
    name: 'pvc-resize',
    path: '/validate/pvc-resize',
    webhookName: 'pvc-resize.voe.harvesterhci.io',
  },
  vm: { name: 'vm', path: '/validate/vm', webhookName: 'vm.voe.harvesterhci.io' },
  setting: {
    name: 'setting',
    path: '/validate/setting',
    webhookName: 'setting.voe.harvesterhci.io',
  },
} as const;

export type WebhookEndpointKey = keyof typeof WEBHOOK_ENDPOINTS;
