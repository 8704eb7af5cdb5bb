/**
 * Names KubeVirt gives its pods and conditions (kubevirt.io/api core/v1 types.go:
 * `AppLabel`, `CreatedByLabel`, `VirtualMachineInstanceAgentConnected`,
 * `VirtualMachineInstancePaused`).
 */

/** Label of every KubeVirt pod, with value virt-launcher or hotplug-disk. */
export const KUBEVIRT_POD_LABEL = 'kubevirt.io';
/** Label of a virt-launcher pod: the uid of the VMI it runs. */
export const CREATED_BY_LABEL = 'kubevirt.io/created-by';
export const LAUNCHER_POD = 'virt-launcher';
export const HOTPLUG_POD = 'hotplug-disk';
/** The VMI condition KubeVirt sets while the guest agent answers. */
export const AGENT_CONNECTED = 'AgentConnected';
/** The VMI condition KubeVirt sets (status True) while the VMI is paused. */
export const PAUSED = 'Paused';
