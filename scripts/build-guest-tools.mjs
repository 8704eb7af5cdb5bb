#!/usr/bin/env node
// Builds the programs of the tests' guest cluster (kube-controller-manager and the CSI sidecars,
// src/controlplane/guest-tools) into the cache `voe cluster build` uses (VOE_CACHE_DIR, else
// ~/.cache/voe), so that no test waits on a build under its own timeout. Run after `npm run build`:
//   node scripts/build-guest-tools.mjs
// Prints progress lines and each tool's path; exits 1 when a build fails.
import process from 'node:process';
import { defaultCacheDir } from '../dist/src/cli/cache-dir.js';
import { buildGuestTools } from '../dist/src/controlplane/guest-tools/index.js';

try {
  const paths = await buildGuestTools({
    cacheDir: defaultCacheDir(),
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  for (const [tool, path] of Object.entries(paths)) process.stdout.write(`${tool}: ${path}\n`);
} catch (error) {
  process.stderr.write(`build-guest-tools: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
}
