export {
  VirshGuestProbe,
  DEFAULT_PROBE_TIMEOUT_MS,
  type VirshGuestProbeOptions,
} from './virsh-guest-probe.js';
export type { VirshHost, VirshTransport } from './virsh-transport.js';
export { localVirsh, LOCAL_LIBVIRT_URI } from './local-virsh.js';
export { podExecVirsh, COMPUTE_CONTAINER } from './pod-exec-virsh.js';
export {
  agentFilesystemList,
  apiFilesystemList,
  filesystemOfDisk,
  filesystemsOfFsinfo,
  parseFilesystemList,
  type FilesystemList,
  type GuestFilesystem,
} from './filesystem-list.js';
export {
  GUEST_BLOCK_SCRIPT,
  busOfDevicePath,
  parseGuestBlockDevices,
  type GuestBlockDevice,
} from './guest-block-devices.js';
export { describeGuestDevices, matchGuestDevice } from './match-guest-device.js';
export {
  isGuestExecRefused,
  parseAgentReturn,
  parseDomblkinfo,
  parseExecPid,
  parseExecStatus,
  type BlockInfo,
  type ExecStatus,
} from './virsh-output.js';
export {
  AGENT_CONNECTED,
  agentConnected,
  diskIdentity,
  domainName,
  type DiskIdentity,
} from './vmi-disk.js';
export { GuestProbeError, GuestProbeErrorCode } from './guest-probe-error.js';
export { createGuestProbe, GUEST_PROBE_MODES, type GuestProbeMode } from './create-guest-probe.js';
