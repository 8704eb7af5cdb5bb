export { makeDirectories } from './make-directories.js';
