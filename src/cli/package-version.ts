import { readFileSync } from 'node:fs';

/** The version in package.json (dist/src/cli -> ../../../package.json). */
export function readPackageVersion(): string {
  const url = new URL('../../../package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(url, 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}
