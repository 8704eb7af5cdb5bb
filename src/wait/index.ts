export { falseOnError, msUntil, waitUntil } from './wait-until.js';
