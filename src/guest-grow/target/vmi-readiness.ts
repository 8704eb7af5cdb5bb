import { AGENT_CONNECTED, type VirtualMachineInstance } from '../../model/index.js';
import { GuestRunError } from '../guest-run-error.js';

/** KubeVirt's VirtualMachineInstancePaused condition type. */
const PAUSED = 'Paused';

/**
 * Why nothing may run in this VMI's guest now, or undefined when it may: it must exist, be
 * Running, not be migrating (a migrationState not completed: the guest moves between launchers)
 * nor paused (condition Paused=True: its agent does not answer), and show AgentConnected=True.
 * Pure.
 */
export function vmiNotReady(
  vmi: VirtualMachineInstance | undefined,
  vm: string,
): GuestRunError | undefined {
  const notReady = (why: string, remedy: string): GuestRunError =>
    new GuestRunError('GUESTRUN_VM_NOT_READY', `${why}; nothing was run — ${remedy}`, {
      details: { vm },
    });
  if (vmi === undefined)
    return notReady(
      `no VirtualMachineInstance ${vm}: the VM is not running`,
      'start the VM, then retry',
    );
  const phase = vmi.status?.phase ?? 'unknown';
  if (phase !== 'Running')
    return notReady(`the VMI ${vm} is ${phase}, not Running`, 'wait until it runs, then retry');
  const migration = vmi.status?.migrationState;
  if (migration !== undefined && migration.completed !== true)
    return notReady(`the VMI ${vm} is migrating`, 'wait until the migration has ended, then retry');
  const conditions = vmi.status?.conditions ?? [];
  if (conditions.some((c) => c.type === PAUSED && c.status === 'True'))
    return notReady(`the VMI ${vm} is paused`, 'unpause it (virtctl unpause vmi), then retry');
  if (!conditions.some((c) => c.type === AGENT_CONNECTED && c.status === 'True'))
    return notReady(
      `the VMI ${vm} has no AgentConnected condition: no guest agent answers`,
      'install and start the QEMU guest agent in the guest (qemu-guest-agent), then retry',
    );
  return undefined;
}
