import type { HostApi } from '../host/host-api.js';
import { SERVER_VERSION_SETTING } from './controller-deps.js';
import { decideHotplugMode, type HotplugMode } from './decide-hotplug-mode.js';

/** The hotplug mode of `host`, from its `server-version` Setting (see decideHotplugMode). */
export async function hotplugModeOf(host: HostApi): Promise<HotplugMode> {
  const setting = await host.getSetting(SERVER_VERSION_SETTING);
  return decideHotplugMode(setting?.value || setting?.default);
}
