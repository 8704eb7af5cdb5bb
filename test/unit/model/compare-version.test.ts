import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseReleaseVersion, versionAtLeast } from '../../../src/model/compare-version.js';

describe('versionAtLeast', () => {
  const table: Array<[string | undefined, string, boolean]> = [
    ['v1.9.0', 'v1.9.0', true],
    ['v1.9.1', 'v1.9.0', true],
    ['v1.10.0', 'v1.9.0', true],
    ['v2.0.0', 'v1.9.0', true],
    ['v1.8.9', 'v1.9.0', false],
    ['v1.5.2', 'v1.9.0', false],
    ['1.9.0', 'v1.9.0', true],
    ['v1.9', 'v1.9.0', true],
    ['v1.9.0-rc.1', 'v1.9.0', false],
    ['v1.9.0-alpha.0-12-gabcdef', 'v1.9.0', false],
    ['v1.9.1-rc.1', 'v1.9.0', true],
    // Builds of the release count as the release: SUSE's package revisions (Harvester's KubeVirt),
    // commits after the tag (git describe), Longhorn hotfixes.
    ['1.9.0-150700.3.21.1', 'v1.9.0', true],
    ['1.8.1-150700.3.21.1', 'v1.9.0', false],
    ['v1.9.0-12-gabcdef', 'v1.9.0', true],
    ['v1.10.0-hotfix-1', 'v1.10.0', true],
    ['v1.10.0-dev-20250601', 'v1.10.0', false],
    ['v1.9.0-dirty', 'v1.9.0', false],
    ['v1.10.1', 'v1.10.0', true],
    ['v1.9.1', 'v1.10.0', false],
    ['v1.10.0+build.5', 'v1.10.0', true],
    [undefined, 'v1.9.0', false],
    ['', 'v1.9.0', false],
    ['devel', 'v1.9.0', false],
    ['latest', 'v1.10.0', false],
  ];
  for (const [version, minimum, expected] of table) {
    it(`${String(version)} >= ${minimum} is ${expected}`, () =>
      assert.strictEqual(versionAtLeast(version, minimum), expected));
  }
  it('parses the parts', () => {
    assert.deepStrictEqual(parseReleaseVersion('v1.10.1'), {
      major: 1,
      minor: 10,
      patch: 1,
      prerelease: '',
    });
    assert.deepStrictEqual(parseReleaseVersion('1.9.0-rc.1'), {
      major: 1,
      minor: 9,
      patch: 0,
      prerelease: 'rc.1',
    });
  });
});
