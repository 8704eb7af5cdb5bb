export { VoeError, isVoeError } from './voe-error.js';
export { excerpt, describeJsonType } from './excerpt.js';
export { isJsonObject } from './is-json-object.js';
export { withArticle } from './with-article.js';
export { redactUrlCredentials } from './redact-url-credentials.js';
