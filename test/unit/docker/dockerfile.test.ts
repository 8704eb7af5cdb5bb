/**
 * The Dockerfile, linted by dockerfile-utils (the Dockerfile language service's validator, from
 * npm) and checked against what the images must be: multi-stage on a Node LTS image, a numeric
 * non-root user, tini as the init that forwards signals and reaps, exec-form entrypoint, the
 * filesystem tools in the node image, apt without recommends and without its lists left behind.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DOCKERFILE,
  execForm,
  parseDockerfile,
  stageInstructions,
  stageParent,
} from '../../support/dockerfile.js';

const LINTER = fileURLToPath(
  new URL('../../../../node_modules/.bin/dockerfile-utils', import.meta.url),
);

interface Problem {
  message: string;
  severity: string;
  instructionLine: number;
}

/** dockerfile-utils lint --json PATH: its exit code (non-zero when it found a problem) and the problems. */
function lint(path: string): Promise<{ code: number; problems: Problem[] }> {
  return new Promise((resolve, reject) => {
    execFile(LINTER, ['lint', '--json', path], (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      try {
        resolve({
          code: error ? Number(error.code) : 0,
          problems: JSON.parse(stdout) as Problem[],
        });
      } catch {
        reject(new Error(`dockerfile-utils answered no JSON: ${stdout}${stderr}`));
      }
    });
  });
}

const runText = (stage: string): string[] =>
  stageInstructions(parseDockerfile(), stage)
    .filter((i) => i.getKeyword() === 'RUN')
    .map((i) =>
      i
        .getArguments()
        .map((a) => a.getValue())
        .join(' '),
    );

describe('Dockerfile', () => {
  it('dockerfile-utils lint finds no problem', async () => {
    assert.deepStrictEqual(await lint(DOCKERFILE), { code: 0, problems: [] });
  });

  it('dockerfile-utils lint is a real linter: it reports the problems of a bad Dockerfile and exits non-zero', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-dockerfile-'));
    try {
      const bad = join(dir, 'Dockerfile');
      await writeFile(
        bad,
        'FROM node:24\nMAINTAINER someone\nEXPOSE http\nrun true\nENTRYPOINT node a.js\nENTRYPOINT ["node"]\n',
      );
      const { code, problems } = await lint(bad);
      assert.notStrictEqual(code, 0);
      const messages = problems.map((p) => p.message);
      assert.includeMembers(messages, [
        'MAINTAINER has been deprecated',
        'Invalid containerPort: http',
        'Instructions should be written in uppercase letters',
      ]);
      assert.isTrue(messages.some((m) => /only be one ENTRYPOINT/.test(m)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('multi-stage: a build stage, and the voe and voe-node images on a shared base without the build tools', () => {
    const dockerfile = parseDockerfile();
    const stages = dockerfile.getFROMs().map((f) => f.getBuildStage());
    assert.deepStrictEqual(stages, ['build', 'base', 'voe-node', 'voe']);
    assert.strictEqual(stageParent(dockerfile, 'voe'), 'base');
    assert.strictEqual(stageParent(dockerfile, 'voe-node'), 'base');
    const copies = stageInstructions(dockerfile, 'base')
      .filter((i) => i.getKeyword() === 'COPY')
      .map((i) =>
        i
          .getArguments()
          .map((a) => a.getValue())
          .join(' '),
      );
    assert.include(copies.join('\n'), '/src/node_modules');
    assert.match(runText('build').join('\n'), /npm prune --omit=dev/);
  });

  it('on a current Node LTS image (an even major from 22 on)', () => {
    const image = parseDockerfile()
      .getARGs()
      .find((arg) => arg.getProperty()?.getName() === 'NODE_IMAGE')!
      .getProperty()!
      .getValue()!;
    const major = Number(/^node:(\d+)-/.exec(image)?.[1]);
    assert.isAtLeast(major, 22, image);
    assert.strictEqual(major % 2, 0, `${image}: odd Node majors are never LTS`);
    assert.match(image, /-slim$/);
  });

  for (const stage of ['voe', 'voe-node']) {
    it(`${stage}: runs as a numeric non-root user, under tini (signals forwarded, children reaped), exec form`, () => {
      const dockerfile = parseDockerfile();
      const users = stageInstructions(dockerfile, stage).filter((i) => i.getKeyword() === 'USER');
      const user = users.pop()!.getArguments()[0]!.getValue();
      assert.match(user, /^[1-9]\d*:[1-9]\d*$/, 'numeric uid:gid, so runAsNonRoot can verify it');
      assert.deepStrictEqual(execForm(dockerfile, stage, 'ENTRYPOINT'), [
        '/usr/bin/tini',
        '--',
        'node',
        '/app/dist/src/cli/main.js',
      ]);
      assert.deepStrictEqual(execForm(dockerfile, stage, 'CMD'), ['--help']);
      assert.match(runText('base').join('\n'), /--no-install-recommends tini/);
      assert.match(runText('base').join('\n'), /useradd --uid 65532/);
    });
  }

  it('voe-node carries e2fsprogs, xfsprogs and btrfs-progs for the filesystem core; every apt-get install skips recommends and removes its lists', () => {
    const node = runText('voe-node').join('\n');
    for (const pkg of ['e2fsprogs', 'xfsprogs', 'btrfs-progs'])
      assert.match(node, new RegExp(`\\b${pkg}\\b`));
    for (const stage of ['base', 'voe-node']) {
      for (const run of runText(stage).filter((r) => r.includes('apt-get install'))) {
        assert.include(run, '--no-install-recommends');
        assert.include(run, 'rm -rf /var/lib/apt/lists/*');
      }
    }
    assert.deepStrictEqual(runText('voe'), [], 'the voe image adds nothing to the base');
  });

  it('the build stage compiles only what ships: src/ alone (tsconfig.build.json), no tests or benchmarks copied', async () => {
    const copied = stageInstructions(parseDockerfile(), 'build')
      .filter((i) => i.getKeyword() === 'COPY')
      .flatMap((i) =>
        i
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue()),
      );
    assert.includeMembers(copied, ['src', 'tsconfig.build.json']);
    for (const source of copied) assert.notMatch(source, /^(test|bench)\b/);
    assert.match(runText('build').join('\n'), /tsc -p tsconfig\.build\.json/);
    const config = JSON.parse(
      await readFile(new URL('../../../../tsconfig.build.json', import.meta.url), 'utf8'),
    ) as { include: string[] };
    assert.deepStrictEqual(config.include, ['src/**/*.ts']);
  });

  it('the images carry the OCI labels (title, source, licenses, version, revision)', () => {
    const labels = stageInstructions(parseDockerfile(), 'base')
      .filter((i) => i.getKeyword() === 'LABEL')
      .flatMap((i) =>
        (i as unknown as { getProperties(): Array<{ getName(): string }> })
          .getProperties()
          .map((p) => p.getName()),
      );
    for (const key of ['title', 'description', 'source', 'licenses', 'version', 'revision'])
      assert.include(labels, `org.opencontainers.image.${key}`);
  });
});
