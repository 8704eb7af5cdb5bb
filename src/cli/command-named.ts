/** The subcommand `argv` (as process.argv) names: its first argument, when not an option. */
export function commandNamed(argv: readonly string[]): string | undefined {
  const first = argv[2];
  return first === undefined || first.startsWith('-') ? undefined : first;
}
