export { VoeError, isVoeError } from './voe-error.js';
