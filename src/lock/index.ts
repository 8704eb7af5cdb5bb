export { acquireLockFile, type AcquireLockFileOptions, type ReleaseLockFile } from './acquire-lock-file.js';
