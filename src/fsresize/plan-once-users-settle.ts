import { setTimeout as delay } from 'node:timers/promises';
import type { BlockDeviceId, BlockDevices } from './model/block-devices.js';
import type { Inspection } from './model/inspection.js';
import { planGrow } from './plan/plan-grow.js';
import type { GrowPlan, PlanOptions } from './model/grow-plan.js';

/** How often an offline grow looks for other users of the device before refusing, and how far apart. */
const USERS_LOOKS = 5;
const USERS_LOOK_INTERVAL_MS = 100;

/**
 * planGrow, where a refusal for other users of the device is looked at again: a program that
 * opens devices for a moment (udev's probe after a size change, blkid, lsblk) is not a user to
 * refuse for. Returns the plan and the inspection it was made on (with the users seen last).
 */
export async function planOnceUsersSettle(
  devices: BlockDevices,
  id: BlockDeviceId,
  inspected: Inspection,
  options: PlanOptions,
): Promise<{ plan: GrowPlan; inspection: Inspection }> {
  let inspection = inspected;
  let plan = planGrow(inspection, options);
  for (
    let look = 1;
    look < USERS_LOOKS &&
    plan.kind === 'refuse' &&
    plan.error.code === 'FSRESIZE_DEVICE_IN_USE' &&
    inspection.users !== null;
    look += 1
  ) {
    await delay(USERS_LOOK_INTERVAL_MS);
    inspection = { ...inspection, users: await devices.users(id) };
    plan = planGrow(inspection, options);
  }
  return { plan, inspection };
}
