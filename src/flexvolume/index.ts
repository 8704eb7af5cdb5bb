export {
  failure,
  handleFlexVolumeCall,
  type FlexVolumeAnswer,
  type FlexVolumeDriverDeps,
  type FlexVolumeFailureCode,
  type FlexVolumeResponse,
} from './flexvolume-driver.js';
