import { describe, it } from 'mocha';
import { assert } from 'chai';
import { hotplugModeOf } from '../../../src/guest-csi-bridge/controller/hotplug-mode-of.js';
import { CsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import { captureLogger } from '../../support/capture-logger.js';

/** A host whose getSetting answers `read` (the only call hotplugModeOf makes). */
const hostReading = (read: () => Promise<unknown>): HostApi =>
  ({ namespace: 'guests', getSetting: read }) as unknown as HostApi;

const forbidden = (): CsiError =>
  new CsiError(
    'CSI_HOST_REQUEST_FAILED',
    'reading Setting server-version: the host answered 403 Forbidden: settings.harvesterhci.io "server-version" is forbidden: User "system:serviceaccount:guests:guest-a" cannot get resource "settings"',
    { details: { httpStatus: 403 } },
  );

describe('hotplugModeOf (server-version, also when unreadable)', () => {
  it('reads the version from the Setting', async () => {
    const { logger } = captureLogger();
    const host = hostReading(async () => ({ value: 'v1.7.1', default: '' }));
    assert.strictEqual(await hotplugModeOf(host, logger), 'legacy');
  });

  it("a 403 (Harvester's guest credentials) counts as no version: declarative, logged once per host", async () => {
    const logs = captureLogger();
    const host = hostReading(async () => {
      throw forbidden();
    });
    assert.strictEqual(await hotplugModeOf(host, logs.logger), 'declarative');
    assert.strictEqual(await hotplugModeOf(host, logs.logger), 'declarative');
    const warnings = logs.lines().filter((line) => /server-version/.test(String(line['msg'])));
    assert.lengthOf(warnings, 1);
  });

  it("any other failure is the call's error", async () => {
    const { logger } = captureLogger();
    const unavailable = new CsiError('CSI_HOST_UNAVAILABLE', 'the host API did not answer');
    const host = hostReading(async () => {
      throw unavailable;
    });
    try {
      await hotplugModeOf(host, logger);
      assert.fail('expected a rejection');
    } catch (error) {
      assert.strictEqual(error, unavailable);
    }
  });
});
