export { describeJsonType, excerpt } from './excerpt.js';
export { isJsonObject } from './is-json-object.js';
export { redactUrlCredentials } from './redact-url-credentials.js';
export { VoeError, isVoeError } from './voe-error.js';
export { withArticle } from './with-article.js';
