/**
 * What an e2fsck exit code means (e2fsck(8) EXIT CODE; the codes are bits). The core only goes
 * on after 0 and 1; the others are named for messages.
 */
export function fsckExitMeaning(exitCode: number): string {
  if (exitCode === 0) return 'no errors';
  if (exitCode === 1) return 'errors corrected';
  const bits: Array<[number, string]> = [
    [1, 'errors corrected'],
    [2, 'corrected, reboot needed'],
    [4, 'errors left uncorrected'],
    [8, 'operational error'],
    [16, 'usage or syntax error'],
    [32, 'cancelled by the user'],
    [128, 'shared-library error'],
  ];
  return (
    bits
      .filter(([bit]) => (exitCode & bit) !== 0)
      .map(([, text]) => text)
      .join(', ') || `exit ${exitCode}`
  );
}

/** "exit N: what it means", as the core's reasons and errors quote a check that ran. */
export function fsckExitText(exitCode: number): string {
  return `exit ${exitCode}: ${fsckExitMeaning(exitCode)}`;
}
