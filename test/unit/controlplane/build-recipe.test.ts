import { it } from 'mocha';
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_STEPS, moduleRecipeKey, recipeKey } from '../../../src/controlplane/build-recipe.js';
import { goModuleDir } from '../../../src/controlplane/go-module-dir.js';

const goMod = readFileSync(join(goModuleDir(), 'go.mod'), 'utf8');
const goSum = readFileSync(join(goModuleDir(), 'go.sum'), 'utf8');

it('the recipe key changes with any pinned module version and nothing else', () => {
  const key = recipeKey(goMod, goSum);
  assert.match(key, /^[0-9a-f]{12}$/);
  assert.strictEqual(moduleRecipeKey(), key);
  assert.strictEqual(recipeKey(goMod, goSum), key, 'stable');
  const bumped = goSum.replace(
    /^(go\.etcd\.io\/bbolt v1\.3\.)(\d+)/m,
    (_all, head: string, patch: string) => `${head}${Number(patch) + 1}`,
  );
  assert.notStrictEqual(bumped, goSum, 'go.sum pins bbolt');
  assert.notStrictEqual(recipeKey(goMod, bumped), key, 'a dependency bumped in go.sum');
  assert.notStrictEqual(
    recipeKey(
      goMod.replace('k8s.io/api => k8s.io/api v0.33.13', 'k8s.io/api => k8s.io/api v0.33.14'),
      goSum,
    ),
    key,
    'a replace moved in go.mod',
  );
});

it('each step says what its --version must print', () => {
  assert.deepStrictEqual(
    BUILD_STEPS.map((step) => [step.binary, step.versionLine]),
    [
      ['kube-apiserver', 'Kubernetes v1.33.13'],
      ['etcd', 'etcd Version: 3.5.21'],
    ],
  );
});
