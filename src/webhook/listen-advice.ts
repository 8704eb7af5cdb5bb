/** What to do when listening failed, by its errno. */
export function listenAdvice(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return 'Pick another --port or stop what uses it.';
    case 'EADDRNOTAVAIL':
      return "The address is not one of this machine's: pick another --bind-address.";
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The --bind-address is neither an IP address nor a name this machine resolves: give an address of this machine.';
    case 'EACCES':
      return 'Ports below 1024 need root (or CAP_NET_BIND_SERVICE): pick a --port above 1023.';
    default:
      return 'Check --bind-address and --port.';
  }
}
