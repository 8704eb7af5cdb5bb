export { acquireLockFile } from './acquire-lock-file.js';
export type { AcquireLockFileOptions, ReleaseLockFile } from './lock-file-types.js';
export { processAlive } from './process-alive.js';
export { processRuns } from './process-runs.js';
export {
  formatLockContent,
  parseLockContent,
  type LockContent,
  type LockProcess,
} from './lock-content.js';
export { processStartTime } from './process-start-time.js';
export { hasEnded, readProcessStat, type ProcessStat } from './read-process-stat.js';
export { ensurePrivateDirectory, type DirectoryProblem } from './ensure-private-directory.js';
export { sweepAbandonedDirs, type SweepAbandonedDirsOptions } from './sweep-abandoned-dirs.js';
