import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { V1LimitRange } from '@kubernetes/client-node';
import {
  apiServerFindings,
  claimClassName,
  quotaFindings,
  type NamespacePolicies,
} from '../../../src/admission/api-server-checks.js';
import type { PersistentVolumeClaim } from '../../../src/model/index.js';
import { pvc, storageClass } from '../../support/webhook/admission-objects.js';

const ROOT = 'vm1-disk-0-kq8zt';
const longhorn = storageClass('longhorn-image-7r2k9', 'driver.longhorn.io');

function withStatus(
  claim: PersistentVolumeClaim,
  status: PersistentVolumeClaim['status'],
): PersistentVolumeClaim {
  return { ...claim, status };
}

describe('apiServerFindings (what Kubernetes checks before the webhook)', () => {
  interface Case {
    name: string;
    claim: PersistentVolumeClaim;
    size: string;
    cls?: typeof longhorn | null;
    outcomes: string[];
    includes?: string;
  }
  const cases: Case[] = [
    {
      name: 'bound, expandable class, growing: pass',
      claim: pvc(ROOT),
      size: '20Gi',
      outcomes: ['pass/allowed'],
    },
    {
      name: 'same size: nothing changes',
      claim: pvc(ROOT),
      size: '10240Mi',
      outcomes: ['pass/not-resize'],
      includes: 'changes nothing',
    },
    {
      name: 'smaller than status.capacity: refused',
      claim: pvc(ROOT),
      size: '5Gi',
      outcomes: ['refuse/api-below-capacity'],
      includes: 'can not be less than status.capacity (10Gi)',
    },
    {
      name: 'smaller than the request but above capacity: a recovery, which asks for no more than is pending',
      claim: withStatus(pvc(ROOT, { storage: '30Gi' }), {
        phase: 'Bound',
        capacity: { storage: '10Gi' },
      }),
      size: '20Gi',
      outcomes: ['pass/recovery'],
      includes:
        'It asks for no more than the expansion already pending above status.capacity (10Gi), so the webhook does not judge it.',
    },
    {
      name: 'not bound',
      claim: withStatus(pvc(ROOT), { phase: 'Pending' }),
      size: '20Gi',
      outcomes: ['refuse/api-not-bound'],
      includes: 'except resources.requests for bound claims, and this one is Pending',
    },
    {
      name: 'class without allowVolumeExpansion',
      claim: pvc(ROOT),
      size: '20Gi',
      cls: { ...longhorn, allowVolumeExpansion: false },
      outcomes: ['refuse/api-expansion-not-allowed'],
      includes: 'Set allowVolumeExpansion: true on StorageClass longhorn-image-7r2k9',
    },
    {
      name: 'class missing',
      claim: pvc(ROOT),
      size: '20Gi',
      cls: null,
      outcomes: ['refuse/api-expansion-not-allowed'],
      includes: 'was not found',
    },
    {
      name: 'pending and no class: validation answers first',
      claim: withStatus(
        { ...pvc(ROOT), spec: { ...pvc(ROOT).spec, storageClassName: '' } },
        { phase: 'Pending' },
      ),
      size: '20Gi',
      cls: null,
      outcomes: ['refuse/api-not-bound'],
    },
    {
      name: 'no class',
      claim: { ...pvc(ROOT), spec: { ...pvc(ROOT).spec, storageClassName: '' } },
      size: '20Gi',
      cls: null,
      outcomes: ['refuse/api-expansion-not-allowed'],
      includes: 'names no StorageClass',
    },
    {
      name: 'a smaller request on an unbound claim',
      claim: withStatus(pvc(ROOT), { phase: 'Pending' }),
      size: '5Gi',
      outcomes: ['refuse/api-not-bound'],
    },
    {
      name: 'zero',
      claim: pvc(ROOT),
      size: '0',
      outcomes: ['refuse/api-invalid-size'],
      includes: 'greater than zero, got 0',
    },
    { name: 'negative', claim: pvc(ROOT), size: '-1Gi', outcomes: ['refuse/api-invalid-size'] },
    {
      name: 'no request yet: judged as growing',
      claim: { ...pvc(ROOT), spec: { ...pvc(ROOT).spec, resources: {} } },
      size: '20Gi',
      outcomes: ['pass/allowed'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const findings = apiServerFindings(c.claim, c.size, () =>
        c.cls === undefined ? longhorn : c.cls,
      );
      assert.deepStrictEqual(
        findings.map((f) => `${f.outcome}/${f.decision}`),
        c.outcomes,
      );
      assert.ok(findings.every((f) => f.check === 'api-server'));
      if (c.includes)
        assert.ok(
          findings.some((f) => f.message.includes(c.includes!)),
          findings.map((f) => f.message).join(' | '),
        );
    });
  }
});

describe('apiServerFindings: what the 1.33 API server reads that the table above does not', () => {
  const recovering = withStatus(pvc(ROOT, { storage: '20Gi' }), {
    phase: 'Bound',
    capacity: { storage: '10Gi' },
  });
  const decisions = (findings: ReturnType<typeof apiServerFindings>): string[] =>
    findings.map((f) => `${f.outcome}/${f.decision}`);
  it('a shrink down to exactly status.capacity is refused, as below it (validation uses <=)', () => {
    assert.deepStrictEqual(decisions(apiServerFindings(recovering, '10Gi', () => longhorn)), [
      'refuse/api-below-capacity',
    ]);
    assert.deepStrictEqual(decisions(apiServerFindings(recovering, '10240Mi', () => longhorn)), [
      'refuse/api-below-capacity',
    ]);
    assert.deepStrictEqual(decisions(apiServerFindings(recovering, '15Gi', () => longhorn)), [
      'pass/recovery',
    ]);
  });
  it('no status.capacity counts as zero: a smaller request is a recovery, and no message says "undefined"', () => {
    const findings = apiServerFindings(
      withStatus(pvc(ROOT), { phase: 'Bound' }),
      '5Gi',
      () => longhorn,
    );
    assert.deepStrictEqual(decisions(findings), ['pass/recovery']);
    assert.ok(
      findings.every((f) => !f.message.includes('undefined')),
      findings[0]?.message,
    );
  });
  it('the beta storage-class annotation is read before spec.storageClassName, even when empty', () => {
    const fixed = { ...longhorn, metadata: { name: 'fixed-size' }, allowVolumeExpansion: false };
    const classes = (name: string) =>
      name === 'fixed-size' ? fixed : name === longhorn.metadata?.name ? longhorn : undefined;
    const annotated = (value: string, specClass?: string): PersistentVolumeClaim => ({
      ...pvc(ROOT),
      metadata: {
        ...pvc(ROOT).metadata,
        annotations: { 'volume.beta.kubernetes.io/storage-class': value },
      },
      spec: { ...pvc(ROOT).spec, storageClassName: specClass },
    });
    assert.deepStrictEqual(
      decisions(
        apiServerFindings(annotated('fixed-size', longhorn.metadata?.name), '20Gi', classes),
      ),
      ['refuse/api-expansion-not-allowed'],
    );
    assert.deepStrictEqual(
      decisions(apiServerFindings(annotated(longhorn.metadata!.name!), '20Gi', classes)),
      ['pass/allowed'],
    );
    assert.deepStrictEqual(
      decisions(apiServerFindings(annotated('', longhorn.metadata?.name), '20Gi', classes)),
      ['refuse/api-expansion-not-allowed'],
    );
    assert.strictEqual(claimClassName(annotated('', 'x')), '');
    assert.strictEqual(claimClassName(pvc(ROOT)), pvc(ROOT).spec?.storageClassName);
  });
  it("a LimitRange's PersistentVolumeClaim min and max storage (LimitRanger, before PersistentVolumeClaimResize)", () => {
    const limitRanges: V1LimitRange[] = [
      {
        metadata: { name: 'pvc-size' },
        spec: {
          limits: [
            { type: 'Container', max: { memory: '1Gi' } },
            { type: 'PersistentVolumeClaim', min: { storage: '12Gi' }, max: { storage: '100Gi' } },
          ],
        },
      },
    ];
    const policies: NamespacePolicies = { limitRanges, quotas: [], unreadable: [] };
    const over = apiServerFindings(pvc(ROOT), '200Gi', () => longhorn, policies);
    assert.deepStrictEqual(decisions(over), ['refuse/api-limit-range']);
    assert.match(
      over[0]!.message,
      /maximum storage usage per PersistentVolumeClaim is 100Gi, but request is 200Gi \(LimitRange pvc-size\)/,
    );
    assert.match(
      apiServerFindings(pvc(ROOT), '11Gi', () => longhorn, policies)[0]!.message,
      /minimum storage usage per PersistentVolumeClaim is 12Gi, but request is 11Gi/,
    );
    assert.deepStrictEqual(
      decisions(apiServerFindings(pvc(ROOT), '20Gi', () => longhorn, policies)),
      ['pass/allowed'],
    );
    assert.deepStrictEqual(
      decisions(
        apiServerFindings(
          pvc(ROOT),
          '200Gi',
          () => ({ ...longhorn, allowVolumeExpansion: false }),
          policies,
        ),
      ),
      ['refuse/api-limit-range'],
      'LimitRanger answers first',
    );
  });
  it('policies that could not be read are named as not judged', () => {
    const findings = apiServerFindings(pvc(ROOT), '20Gi', () => longhorn, {
      limitRanges: [],
      quotas: [],
      unreadable: ['LimitRanges in default (HTTP 403)'],
    });
    assert.deepStrictEqual(decisions(findings), ['skip/api-policy-unreadable', 'pass/allowed']);
  });
});

describe('quotaFindings (ResourceQuota, after the webhooks)', () => {
  const quota = (
    hard: Record<string, string>,
    used: Record<string, string>,
    extra: Record<string, unknown> = {},
  ) => ({ metadata: { name: 'storage' }, spec: { hard, ...extra }, status: { hard, used } });
  it('refuses a growth that takes requests.storage above hard; a smaller one, a shrink and a scoped quota pass', () => {
    const quotas = [quota({ 'requests.storage': '75Gi' }, { 'requests.storage': '60Gi' })];
    const refused = quotaFindings(pvc(ROOT), '30Gi', quotas);
    assert.deepStrictEqual(
      refused.map((f) => `${f.check}/${f.outcome}/${f.decision}`),
      ['quota/refuse/api-quota-exceeded'],
    );
    assert.match(
      refused[0]!.message,
      /exceeded quota storage: requests\.storage is 60Gi used of 75Gi, and growing from 10Gi to 30Gi would go above it/,
    );
    assert.deepStrictEqual(quotaFindings(pvc(ROOT), '25Gi', quotas), []);
    assert.deepStrictEqual(quotaFindings(pvc(ROOT), '5Gi', quotas), []);
    assert.deepStrictEqual(
      quotaFindings(pvc(ROOT), '30Gi', [
        quota(
          { 'requests.storage': '75Gi' },
          { 'requests.storage': '60Gi' },
          { scopes: ['Terminating'] },
        ),
      ]),
      [],
    );
  });
  it("a per-StorageClass quota counts the claim's class only", () => {
    const className = pvc(ROOT).spec?.storageClassName ?? '';
    const perClass = [
      quota(
        { [`${className}.storageclass.storage.k8s.io/requests.storage`]: '15Gi' },
        { [`${className}.storageclass.storage.k8s.io/requests.storage`]: '10Gi' },
      ),
    ];
    assert.strictEqual(quotaFindings(pvc(ROOT), '20Gi', perClass).length, 1);
    const other = [
      quota(
        { 'other.storageclass.storage.k8s.io/requests.storage': '15Gi' },
        { 'other.storageclass.storage.k8s.io/requests.storage': '10Gi' },
      ),
    ];
    assert.deepStrictEqual(quotaFindings(pvc(ROOT), '20Gi', other), []);
  });
  it('after a failed expansion a claim is charged its status.allocatedResources when larger (RecoverVolumeExpansionFailure, 1.32 on)', () => {
    // The request was lowered to 50Gi after an expansion to 100Gi failed; the quota counts 100Gi.
    const base = pvc(ROOT);
    const lowered = {
      ...base,
      spec: { ...base.spec, resources: { requests: { storage: '50Gi' } } },
      status: { ...base.status, allocatedResources: { storage: '100Gi' } },
    } as PersistentVolumeClaim;
    const full = [quota({ 'requests.storage': '100Gi' }, { 'requests.storage': '100Gi' })];
    assert.deepStrictEqual(
      quotaFindings(lowered, '60Gi', full),
      [],
      'still charged 100Gi: no growth',
    );
    assert.deepStrictEqual(quotaFindings(lowered, '60Gi', full, { major: 1, minor: 33 }), []);
    const beyond = quotaFindings(lowered, '110Gi', full);
    assert.strictEqual(beyond[0]?.decision, 'api-quota-exceeded', 'charged 100Gi -> 110Gi');
    // Before 1.32 the gate is off by default: the request alone is charged.
    assert.strictEqual(
      quotaFindings(lowered, '60Gi', full, { major: 1, minor: 31 })[0]?.decision,
      'api-quota-exceeded',
    );
  });
});

describe("apiServerFindings: a smaller request depends on the API server's version (RecoverVolumeExpansionFailure on by default since 1.32)", () => {
  const recovering = withStatus(pvc(ROOT, { storage: '20Gi' }), {
    phase: 'Bound',
    capacity: { storage: '10Gi' },
  });
  const policies = (minor: number): NamespacePolicies => ({
    limitRanges: [],
    quotas: [],
    unreadable: [],
    serverVersion: { major: 1, minor },
  });
  const decisions = (findings: ReturnType<typeof apiServerFindings>): string[] =>
    findings.map((f) => `${f.outcome}/${f.decision}`);
  it('Kubernetes 1.30 (Harvester 1.4) refuses any shrink: "can not be less than previous value"', () => {
    const findings = apiServerFindings(recovering, '15Gi', () => longhorn, policies(30));
    assert.deepStrictEqual(decisions(findings), ['refuse/api-below-previous']);
    assert.match(
      findings[0]!.message,
      /can not be less than its previous value \(20Gi\): Kubernetes 1\.30 allows/,
    );
  });
  it('unless the claim already records allocatedResources or allocatedResourceStatuses (the gate was on once)', () => {
    for (const extra of [
      { allocatedResources: { storage: '20Gi' } },
      { allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' } },
    ]) {
      const claim = withStatus(recovering, { ...recovering.status, ...extra });
      assert.deepStrictEqual(
        decisions(apiServerFindings(claim, '15Gi', () => longhorn, policies(30))),
        ['pass/recovery'],
      );
      assert.deepStrictEqual(
        decisions(apiServerFindings(claim, '10Gi', () => longhorn, policies(30))),
        ['refuse/api-below-capacity'],
      );
    }
  });
  it('1.32 and later, or a version that could not be read, allow the recovery and say which', () => {
    assert.match(
      apiServerFindings(recovering, '15Gi', () => longhorn, policies(33))[0]!.message,
      /this API server runs 1\.33/,
    );
    assert.match(
      apiServerFindings(recovering, '15Gi', () => longhorn)[0]!.message,
      /version could not be read/,
    );
    assert.deepStrictEqual(
      decisions(apiServerFindings(recovering, '25Gi', () => longhorn, policies(30))),
      ['pass/allowed'],
      'growing is not affected',
    );
  });
});
