import { chmod, cp, mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dockerfile, Instruction } from 'dockerfile-ast';
import { parseDockerfile, stageInstructions, stageParent } from '../dockerfile.js';

/** The clone (the Docker build context). */
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

/** What the build stage makes with RUN (tsc's output and the pruned dependencies), besides what it COPYs from the context. */
const BUILT = ['dist/', 'node_modules/'];

/** One COPY of an image stage: its sources (absolute in the image it copies from, or context paths) and destination. */
export interface ImageCopy {
  from?: string;
  sources: string[];
  /** The absolute destination; a directory when it ends in "/" or there are several sources. */
  destination: string;
  /** The stage's WORKDIR at this COPY. */
  workdir: string;
}

const words = (instruction: Instruction): string[] =>
  instruction.getArguments().map((a) => a.getValue());

const fromFlag = (instruction: Instruction): string | undefined => {
  const flags = (
    instruction as unknown as { getFlags(): Array<{ getName(): string; getValue(): string }> }
  ).getFlags();
  return flags.find((f) => f.getName() === 'from')?.getValue();
};

/** The stages `stage` is built from, the first FROM an image first (e.g. base, voe-node). */
function stageChain(dockerfile: Dockerfile, stage: string): string[] {
  const names = new Set(dockerfile.getFROMs().map((f) => f.getBuildStage()));
  const chain: string[] = [];
  for (let s: string | undefined = stage; s && names.has(s); s = stageParent(dockerfile, s))
    chain.unshift(s);
  return chain;
}

/** The COPY lines of `stage` (and the stages under it), destinations made absolute by their WORKDIR. */
export function imageCopies(stage: string, dockerfile = parseDockerfile()): ImageCopy[] {
  const copies: ImageCopy[] = [];
  for (const name of stageChain(dockerfile, stage)) {
    let workdir = '/';
    for (const instruction of stageInstructions(dockerfile, name)) {
      if (instruction.getKeyword() === 'WORKDIR')
        workdir = posix.resolve(workdir, words(instruction)[0]!);
      if (instruction.getKeyword() !== 'COPY') continue;
      const args = words(instruction);
      const from = fromFlag(instruction);
      const target = args.at(-1)!;
      const sources = args.slice(0, -1);
      const isDir = target.endsWith('/') || sources.length > 1;
      copies.push({
        ...(from ? { from } : {}),
        sources,
        destination: `${posix.resolve(workdir, target)}${isDir ? '/' : ''}`,
        workdir,
      });
    }
  }
  return copies;
}

/** Where `source` of `copy` lands: into the destination directory, or as the destination. */
const destinationOf = (copy: ImageCopy, source: string): string =>
  copy.destination.endsWith('/')
    ? posix.join(copy.destination, posix.basename(source))
    : copy.destination;

/** Whether the dependency at `path` (node_modules/…) is one npm prune --omit=dev removes. */
async function devOnly(): Promise<(path: string) => boolean> {
  const lock = JSON.parse(await readFile(join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return (path) => lock.packages[path]?.dev === true;
}

/**
 * Builds in `root` the file tree of image `stage` as its COPY lines make it: a COPY from the context
 * takes the clone's file; a COPY --from=build takes the build stage's path (its WORKDIR mapped onto
 * the clone, whose dist/ is tsc's output), refusing a path the build stage neither copies nor
 * builds; node_modules without the dependencies npm prune --omit=dev removes. Everything readable
 * by any user, as the image's layers are.
 */
export async function assembleImageTree(stage: string, root: string): Promise<void> {
  const dockerfile = parseDockerfile();
  const buildCopies = imageCopies('build', dockerfile);
  const buildDir = buildCopies.at(-1)?.workdir ?? '/';
  const inBuild = (path: string): string => {
    const rel = posix.relative(buildDir, path);
    const copied = buildCopies.some((copy) =>
      copy.sources.some((source) => {
        const into = posix.relative(buildDir, destinationOf(copy, source));
        return rel === into || rel.startsWith(`${into}/`);
      }),
    );
    if (!copied && !BUILT.some((built) => `${rel}/`.startsWith(built)))
      throw new Error(`COPY --from=build ${path}: the build stage neither copies nor builds it`);
    return join(REPO, rel);
  };
  const isDev = await devOnly();
  for (const copy of imageCopies(stage, dockerfile)) {
    if (copy.from !== undefined && copy.from !== 'build')
      throw new Error(`COPY --from=${copy.from}: only the build stage is known`);
    for (const source of copy.sources) {
      const from = copy.from ? inBuild(source) : join(REPO, source);
      const into = join(root, destinationOf(copy, source));
      await stat(from);
      await mkdir(dirname(into), { recursive: true });
      await cp(from, into, {
        recursive: true,
        filter: (path) => !isDev(relative(REPO, path).split(sep).join('/')),
      });
    }
  }
  await chmod(root, 0o755);
}
