import { isIPv6 } from 'node:net';

/** The host part of a URL reaching a bound address: a wildcard as its loopback, IPv6 in brackets. */
export function urlHost(address: string): string {
  const host = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '::1' : address;
  return isIPv6(host) ? `[${host}]` : host;
}
