import { VoeError } from '../../errors/index.js';

/**
 * Stable codes of the plan that grows a guest's partition, LVM and filesystem (planGuestGrowth,
 * planWindowsGrowth); each one is documented in docs/errors.md, section "guest growth".
 */
export const GuestGrowthErrorCode = {
  DeviceNotFound: 'GUESTGROW_DEVICE_NOT_FOUND',
  LayoutUnreadable: 'GUESTGROW_LAYOUT_UNREADABLE',
  UnsupportedLayout: 'GUESTGROW_UNSUPPORTED_LAYOUT',
  NotLastPartition: 'GUESTGROW_NOT_LAST_PARTITION',
  NotMounted: 'GUESTGROW_NOT_MOUNTED',
  Encrypted: 'GUESTGROW_ENCRYPTED',
  UnsupportedFilesystem: 'GUESTGROW_UNSUPPORTED_FILESYSTEM',
  ToolsMissing: 'GUESTGROW_TOOLS_MISSING',
  SeveralLogicalVolumes: 'GUESTGROW_SEVERAL_LOGICAL_VOLUMES',
  WouldShrink: 'GUESTGROW_WOULD_SHRINK',
  WindowsRecoveryPartition: 'GUESTGROW_WINDOWS_RECOVERY_PARTITION',
} as const;

export type GuestGrowthErrorCode = (typeof GuestGrowthErrorCode)[keyof typeof GuestGrowthErrorCode];

/**
 * Why a guest's growth is refused: `reason` says what was found, `remedy` what the user can do
 * (both for the expansion's status and Events); the message joins them. Nothing was run.
 */
export class GuestGrowthError extends VoeError<GuestGrowthErrorCode> {
  readonly reason: string;
  readonly remedy: string;

  constructor(
    code: GuestGrowthErrorCode,
    reason: string,
    remedy: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, `${reason}; nothing was changed — ${remedy}`, { details });
    this.reason = reason;
    this.remedy = remedy;
  }
}
