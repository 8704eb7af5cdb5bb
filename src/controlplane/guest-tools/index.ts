export { buildGuestTool, guestToolPath } from './build-guest-tool.js';
export { buildGuestTools, type GuestToolPaths } from './build-guest-tools.js';
export { GUEST_TOOLS, type GuestTool } from './guest-tool-recipe.js';
