export { failure, handleFlexVolumeCall } from './flexvolume-driver.js';
