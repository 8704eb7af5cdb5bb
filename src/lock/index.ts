export { acquireLockFile, processAlive, type AcquireLockFileOptions, type ReleaseLockFile } from './acquire-lock-file.js';
