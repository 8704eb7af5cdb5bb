export type { ControlPlane } from './control-plane.js';
