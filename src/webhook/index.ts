export { admissionWiring } from './admission-wiring.js';
export { chooseServingSetup, type ServingChoice } from './choose-serving-setup.js';
export { deleteValidatingWebhookConfiguration } from './registration/webhook-registration.js';
export { removeRegistrationIfNamespaceEnds } from './registration/remove-registration-if-namespace-ends.js';
export {
  DEV_CONFIGURATION_NAME,
  serveWebhook,
  type ServeWebhookOptions,
  type ServingWebhook,
} from './serve-webhook.js';
export type { ServingSetup } from './serving-setup.js';
export { WEBHOOK_ENDPOINTS } from './webhook-endpoints.js';
export { WebhookError } from './webhook-error.js';
