export { acquireLockFile } from './acquire-lock-file.js';
export { ensurePrivateDirectory, type DirectoryProblem } from './ensure-private-directory.js';
export type { ReleaseLockFile } from './lock-file-types.js';
export { processAlive } from './process-alive.js';
export { processRuns } from './process-runs.js';
export { hasEnded, readProcessStat } from './read-process-stat.js';
export { sweepAbandonedDirs } from './sweep-abandoned-dirs.js';
