import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DockerfileParser, type Dockerfile, type Instruction } from 'dockerfile-ast';

/** The repository's Dockerfile (dist/test/support/<this>.js -> the clone). */
export const DOCKERFILE = fileURLToPath(new URL('../../../Dockerfile', import.meta.url));

export function parseDockerfile(path = DOCKERFILE): Dockerfile {
  return DockerfileParser.parse(readFileSync(path, 'utf8'));
}

/** The instructions of build stage `name` (from its FROM to the next). */
export function stageInstructions(dockerfile: Dockerfile, name: string): Instruction[] {
  const instructions = dockerfile.getInstructions();
  const start = instructions.findIndex(
    (i) =>
      i.getKeyword() === 'FROM' &&
      dockerfile
        .getFROMs()
        .find((f) => f === i)
        ?.getBuildStage() === name,
  );
  if (start < 0) throw new Error(`no stage ${name} in the Dockerfile`);
  const next = instructions.findIndex((i, index) => index > start && i.getKeyword() === 'FROM');
  return instructions.slice(start, next < 0 ? undefined : next);
}

/** The stage `name` builds on (its FROM image, e.g. "base"). */
export function stageParent(dockerfile: Dockerfile, name: string): string {
  return dockerfile
    .getFROMs()
    .find((f) => f.getBuildStage() === name)!
    .getImageName()!;
}

/** The exec-form arguments of the last `keyword` (ENTRYPOINT, CMD) in stage `name` or the stages it builds on. */
export function execForm(
  dockerfile: Dockerfile,
  name: string,
  keyword: 'ENTRYPOINT' | 'CMD',
): string[] | undefined {
  const stageNames = new Set(dockerfile.getFROMs().map((f) => f.getBuildStage()));
  for (
    let stage: string | undefined = name;
    stage && stageNames.has(stage);
    stage = stageParent(dockerfile, stage)
  ) {
    const found = stageInstructions(dockerfile, stage)
      .filter((i) => i.getKeyword() === keyword)
      .pop();
    if (found) {
      const json = (
        found as unknown as { getJSONStrings(): Array<{ getJSONValue(): string }> }
      ).getJSONStrings();
      return json.map((s) => s.getJSONValue());
    }
  }
  return undefined;
}
