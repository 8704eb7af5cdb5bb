import type { Logger } from '../../log/index.js';
import { isCsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import { SERVER_VERSION_SETTING } from './controller-deps.js';
import { decideHotplugMode, type HotplugMode } from './decide-hotplug-mode.js';

/** The hosts whose unreadable `server-version` was logged already (once per host). */
const loggedUnreadable = new WeakSet<HostApi>();

/** Whether the host refused the read for lack of permission (403). */
function forbidden(error: unknown): boolean {
  return isCsiError(error, 'CSI_HOST_REQUEST_FAILED') && error.details['httpStatus'] === 403;
}

/**
 * The hotplug mode of `host`, from its `server-version` Setting (see decideHotplugMode). The
 * credentials Harvester generates for a guest cluster cannot read that Setting (the ClusterRole
 * harvesterhci.io:csi-driver names only two other Settings): a 403 counts as no version, as an
 * unknown version does (declarative, which that role's `patch` on VirtualMachines allows), and is
 * logged once per host.
 */
export async function hotplugModeOf(host: HostApi, log: Logger): Promise<HotplugMode> {
  let value: string | undefined;
  try {
    const setting = await host.getSetting(SERVER_VERSION_SETTING);
    value = setting?.value || setting?.default;
  } catch (error) {
    if (!forbidden(error)) throw error;
    const key = host.base ?? host;
    if (!loggedUnreadable.has(key)) {
      loggedUnreadable.add(key);
      log.warn(
        { setting: SERVER_VERSION_SETTING, err: (error as Error).message },
        "the host credentials cannot read the Harvester Setting server-version (as with Harvester's guest-cluster credentials); hotplugging as for an unknown version: declaratively",
      );
    }
  }
  return decideHotplugMode(value);
}
