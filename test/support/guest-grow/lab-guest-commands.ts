import type { LabVm } from '../../../src/demo/index.js';

/** One command for the lab guest: an argument list (never a shell string), and its standard input. */
export interface LabGuestCommand {
  argv: readonly string[];
  stdin?: string | undefined;
}

/** Runs `argv` in the guest through its agent (guest-exec finds argv[0] on the guest's PATH). */
export async function labGuestRun(
  vm: LabVm,
  command: LabGuestCommand,
): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }> {
  const [path, ...args] = command.argv;
  return vm.guestExec(path!, args, command.stdin);
}

/** Runs `argv` in the guest; its standard output, or an Error with its exit code and stderr. */
export async function labGuestOutput(vm: LabVm, command: LabGuestCommand): Promise<string> {
  const result = await labGuestRun(vm, command);
  if (result.exitCode !== 0)
    throw new Error(
      `${command.argv.join(' ')} exited ${String(result.exitCode)} in the guest: ${result.stderr.trim() || result.stdout.trim()}`,
    );
  return result.stdout;
}

/**
 * Each guest block device /sys/block/<prefix>* with one of its sysfs attributes (`serial`,
 * `size`), as [name, value]; devices without a value are left out.
 */
export async function labGuestBlockAttribute(
  vm: LabVm,
  prefix: string,
  attribute: string,
): Promise<Array<[string, string]>> {
  const listing = await labGuestOutput(vm, {
    argv: [
      'sh',
      '-c',
      'for d in /sys/block/"$1"*; do echo "${d##*/} $(cat "$d/$2")"; done',
      'sh',
      prefix,
      attribute,
    ],
  });
  return listing
    .trim()
    .split('\n')
    .filter((line) => line.includes(' ') && line.split(' ')[1] !== '')
    .map((line) => line.split(' ') as [string, string]);
}
