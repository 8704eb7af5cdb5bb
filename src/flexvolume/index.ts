export { handleFlexVolumeCall, type FlexVolumeAnswer, type FlexVolumeDriverDeps, type FlexVolumeResponse } from './flexvolume-driver.js';
