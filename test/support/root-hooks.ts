/**
 * Loaded by mocha before every test file (`--require`, see scripts/run-tests.mjs): chai learns
 * chai-as-promised's assertions, and each test's `onCleanup` functions run after it.
 */
import { use } from 'chai';
export { mochaHooks } from './cleanup.js';
import chaiAsPromised from 'chai-as-promised';

use(chaiAsPromised);
