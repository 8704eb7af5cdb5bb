import type { GuestFilesystemStatus } from './volume-expansion.js';

/** Each command run with its exit code and output: `cmd` (exit 0: output). */
function commandsText(filesystem: GuestFilesystemStatus): string {
  return (filesystem.commands ?? [])
    .map((command) => {
      const exit = command.exitCode === undefined ? 'did not exit' : `exit ${command.exitCode}`;
      const output = command.output ? `: ${command.output.replace(/\s+/g, ' ').trim()}` : '';
      return `\`${command.command}\` (${exit}${output})`;
    })
    .join('; ');
}

/**
 * The note of the Event on the VM once the tracker grew (or failed to grow) a guest's
 * filesystem: the claim, the result, the sizes before and after, and every command run with its
 * exit code and output (the recorder cuts the note at 1 KiB; the status keeps the commands).
 * Pure.
 */
export function guestGrowthNote(
  claim: string,
  filesystem: GuestFilesystemStatus,
  message: string,
): string {
  const commands = commandsText(filesystem);
  const ran = commands ? ` Ran ${commands}.` : '';
  switch (filesystem.result) {
    case 'Grown':
      return `${claim}: grew ${filesystem.mountPoint ?? 'the filesystem'} from ${filesystem.beforeBytes} to ${filesystem.afterBytes} bytes.${ran}`;
    case 'NothingToDo':
      return `${claim}: the guest's filesystem already fills the disk; nothing ran.`;
    default:
      return `${claim}: the guest's filesystem was not grown (${filesystem.code ?? filesystem.result ?? 'unknown'}).${ran} ${message}`;
  }
}
