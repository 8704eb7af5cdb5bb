import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { KubeConfig } from '@kubernetes/client-node';
import { expectRejection, expectThrow } from '../../support/expect-error.js';
import { createLogger } from '../../../src/log/index.js';
import {
  chooseServingSetup,
  type ServingChoice,
} from '../../../src/webhook/choose-serving-setup.js';
import { DEV_CONFIGURATION_NAME } from '../../../src/webhook/dev-serving-setup.js';
import type { Cleanup, StartUpCleanups } from '../../../src/webhook/start-up-cleanups.js';
import type { StartedCaches } from '../../../src/webhook/started-caches.js';

/** Cleanups that only record what a step registered. */
function recordedCleanups(): StartUpCleanups & { added: Cleanup[] } {
  const added: Cleanup[] = [];
  return { added, add: (cleanup) => void added.push(cleanup), stop: () => Promise.resolve() };
}

/** Anything a setup would read of it throws: a step that touches the cluster fails the test. */
const untouchable = <T extends object>(what: string): T =>
  new Proxy({} as T, {
    get: (_target, key) => {
      throw new Error(`${what}.${String(key)} read`);
    },
  });

describe('chooseServingSetup (voe serve: which certificate and registration steps)', () => {
  const cases: Array<{
    title: string;
    choice: ServingChoice;
    described: { certDir?: string; configurationName?: string };
  }> = [
    {
      title: 'in cluster: the given files, no registration',
      choice: { dev: false, tlsCertFile: 'tls.crt', tlsKeyFile: 'tls.key' },
      described: {},
    },
    {
      title: 'in cluster, with the dev-only names given by servePlan: still no registration',
      choice: {
        dev: false,
        tlsCertFile: 'tls.crt',
        tlsKeyFile: 'tls.key',
        configurationName: DEV_CONFIGURATION_NAME,
        settingName: 'csi-online-expand-validation',
      },
      described: {},
    },
    {
      title: '--dev: its own registration, under the default name',
      choice: { dev: true },
      described: { configurationName: DEV_CONFIGURATION_NAME },
    },
    {
      title: '--dev --webhook-configuration-name: under that name',
      choice: { dev: true, configurationName: 'mine', certDir: '/srv/certs' },
      described: { configurationName: 'mine' },
    },
  ];
  for (const { title, choice, described } of cases) {
    it(title, () => {
      assert.deepStrictEqual(chooseServingSetup(choice).described(), described);
    });
  }

  it('in cluster: serves the given files and does nothing once listening (no cleanup, no cluster call)', async () => {
    const setup = chooseServingSetup({ dev: false, tlsCertFile: 'a.crt', tlsKeyFile: 'a.key' });
    const cleanups = recordedCleanups();
    const step = { cleanups, logger: createLogger({ level: 'silent' }), signal: undefined };
    assert.deepStrictEqual(await setup.prepareCertificate({ ...step, host: '0.0.0.0' }), {
      certFile: 'a.crt',
      keyFile: 'a.key',
    });
    await setup.afterListening({
      ...step,
      kubeConfig: untouchable<KubeConfig>('kubeConfig'),
      url: 'https://127.0.0.1:9443',
      started: untouchable<StartedCaches<unknown>>('started'),
      reviewsAnswered: () => Promise.reject(new Error('reviewsAnswered called')),
    });
    assert.lengthOf(cleanups.added, 0);
  });

  it('--dev: registering before its certificate exists is a programming error', async () => {
    const setup = chooseServingSetup({ dev: true });
    await expectRejection(
      setup.afterListening({
        cleanups: recordedCleanups(),
        logger: createLogger({ level: 'silent' }),
        signal: undefined,
        kubeConfig: untouchable<KubeConfig>('kubeConfig'),
        url: 'https://127.0.0.1:9443',
        started: untouchable<StartedCaches<unknown>>('started'),
        reviewsAnswered: () => Promise.resolve(0),
      }),
      /afterListening before prepareCertificate/,
    );
  });

  const refused: Array<[string, ServingChoice, RegExp]> = [
    ['--dev with certificate files', { dev: true, tlsCertFile: 'tls.crt' }, /--dev generates/],
    ['--cert-dir without --dev', { dev: false, certDir: '/srv/c' }, /--cert-dir is where --dev/],
    ['in cluster without files', { dev: false }, /Serving in cluster needs/],
  ];
  for (const [title, choice, message] of refused) {
    it(`refused before anything is done: ${title}`, () => {
      expectThrow(() => chooseServingSetup(choice), { code: 'WEBHOOK_INVALID_OPTIONS', message });
    });
  }
});
