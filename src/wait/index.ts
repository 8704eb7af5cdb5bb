export {
  falseOnError,
  msUntil,
  waitUntil,
  type WaitOutcome,
  type WaitUntilOptions,
} from './wait-until.js';
