import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../charts/render.js';
import { fencedBlocks, type FencedBlock } from './fenced-blocks.js';

/** The operator documents whose every command a test runs or names a reason not to. */
export const TESTED_DOCS = ['docs/install.md', 'docs/troubleshooting.md'] as const;

/** A fenced block of one of TESTED_DOCS, with the file it is in. */
export interface DocBlock extends FencedBlock {
  file: string;
}

/** The fenced blocks of TESTED_DOCS, in file order. */
export function testedDocBlocks(): DocBlock[] {
  return TESTED_DOCS.flatMap((file) =>
    fencedBlocks(readFileSync(join(repoRoot(), file), 'utf8')).map((block) => ({
      ...block,
      file,
    })),
  );
}
