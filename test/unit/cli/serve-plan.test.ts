import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { servePlan, type ServeFlags } from '../../../src/cli/commands/serve-flags.js';
import { DEV_CONFIGURATION_NAME } from '../../../src/webhook/serve-webhook.js';

const flags = (more: Partial<ServeFlags> = {}): ServeFlags => ({
  kubevirt: 'harvester-system/kubevirt',
  setting: 'csi-online-expand-validation',
  longhornNamespace: 'longhorn-system',
  longhornV2Expansion: 'auto',
  longhorn: 'auto',
  port: 9443,
  webhookConfigurationName: DEV_CONFIGURATION_NAME,
  logLevel: 'info',
  shutdownDelay: 0,
  ...more,
});

describe('servePlan (voe serve: flags to what is served)', () => {
  it('in cluster: 0.0.0.0, the given files, the shutdown delay', () => {
    const plan = servePlan(
      flags({ tlsCertFile: 'tls.crt', tlsKeyFile: 'tls.key', shutdownDelay: 5, longhorn: 'on' }),
    );
    assert.deepStrictEqual(plan.webhook, {
      dev: false,
      host: '0.0.0.0',
      port: 9443,
      tlsCertFile: 'tls.crt',
      tlsKeyFile: 'tls.key',
      configurationName: DEV_CONFIGURATION_NAME,
      settingName: 'csi-online-expand-validation',
    });
    assert.strictEqual(plan.shutdownDelay, 5);
    assert.isTrue(plan.longhorn);
    assert.strictEqual(plan.admission.kubeVirtName, 'kubevirt');
  });

  it('--dev: 127.0.0.1, its cert dir, name and timeouts in ms', () => {
    const plan = servePlan(
      flags({
        dev: true,
        certDir: '/srv/c',
        webhookConfigurationName: 'mine',
        cacheSyncTimeout: 2.5,
        registrationTimeout: 10,
        longhorn: 'off',
      }),
    );
    assert.deepStrictEqual(plan.webhook, {
      dev: true,
      host: '127.0.0.1',
      port: 9443,
      certDir: '/srv/c',
      configurationName: 'mine',
      settingName: 'csi-online-expand-validation',
      cacheSyncTimeoutMs: 2500,
      registrationTimeoutMs: 10_000,
    });
    assert.isFalse(plan.longhorn);
  });

  it('--bind-address wins, --longhorn auto stays auto', () => {
    const plan = servePlan(flags({ dev: true, bindAddress: '::1' }));
    assert.strictEqual(plan.webhook.host, '::1');
    assert.strictEqual(plan.longhorn, 'auto');
  });

  it('the admission flags are checked first', () => {
    expectThrow(() => servePlan(flags({ kubevirt: 'nope', dev: true, shutdownDelay: 3 })), {
      code: 'WEBHOOK_INVALID_OPTIONS',
      message: /^--kubevirt "nope" is not NAMESPACE\/NAME/,
    });
  });

  it('--shutdown-delay with --dev is refused', () => {
    expectThrow(() => servePlan(flags({ dev: true, shutdownDelay: 1 })), {
      code: 'WEBHOOK_INVALID_OPTIONS',
      message: /^--shutdown-delay applies only without --dev/,
    });
  });

  it('without --dev, the dev-only flags are refused, all named', () => {
    expectThrow(() => servePlan(flags({ registrationTimeout: 3 })), {
      code: 'WEBHOOK_INVALID_OPTIONS',
      message: /^--registration-timeout applies only with --dev /,
    });
    expectThrow(
      () =>
        servePlan(
          flags({ webhookConfigurationName: 'x', cacheSyncTimeout: 1, registrationTimeout: 1 }),
        ),
      {
        code: 'WEBHOOK_INVALID_OPTIONS',
        message:
          /^--webhook-configuration-name, --cache-sync-timeout, --registration-timeout apply only with --dev /,
      },
    );
  });
});
