export { removeDirAtExit, removeRegisteredDirs } from './remove-dir-at-exit.js';
