import { buildGuestTool, type BuildGuestToolOptions } from './build-guest-tool.js';
import { GUEST_TOOLS, type GuestTool } from './guest-tool-recipe.js';

export type GuestToolPaths = Record<GuestTool['binary'], string>;

/** Every guest tool (GUEST_TOOLS), built one after the other when not cached; their paths. */
export async function buildGuestTools(options: BuildGuestToolOptions): Promise<GuestToolPaths> {
  const paths: Partial<GuestToolPaths> = {};
  for (const tool of GUEST_TOOLS) paths[tool.binary] = await buildGuestTool(tool, options);
  return paths as GuestToolPaths;
}
