export {
  failure,
  handleFlexVolumeCall,
  type FlexVolumeAnswer,
  type FlexVolumeDriverDeps,
  FlexVolumeFailureCode,
  type FlexVolumeResponse,
} from './flexvolume-driver.js';
