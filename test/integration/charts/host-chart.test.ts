/**
 * The host chart (charts/volume-online-expansion) with a helm built from its Go module: helm lint
 * and helm template pass with the default and non-default values, values.schema.json refuses what
 * the templates cannot use, the webhook configuration is the one `voe serve --dev` registers, the
 * CRD is manifests/'s, the pods are locked down, and the Harvester Addon installs this chart.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { V1Deployment, V1PodSpec } from '@kubernetes/client-node';
import { buildValidatingWebhookConfiguration } from '../../../src/webhook/registration/build-validating-webhook-configuration.js';
import { HOST_VALUE_SETS } from '../../support/charts/host-values.js';
import { assertHeapFits } from '../../support/charts/node-options.js';
import { buildPromqlCheck, checkPromql } from '../../support/promql-check.js';
import {
  HOST_CHART,
  hookOf,
  objectsOf,
  oneOf,
  repoRoot,
  useHelm,
  type Helm,
  type Rendered,
} from '../../support/charts/render.js';

const VALUE_SETS: Array<[string, Record<string, unknown> | undefined]> = [
  ['default values', undefined],
  ...Object.entries(HOST_VALUE_SETS),
];

/** values.yaml merged with `values` as helm merges them (maps deeply, everything else replaced). */
function merged(
  base: Record<string, unknown>,
  values: Record<string, unknown> = {},
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(values)) {
    const old = result[key];
    result[key] =
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      old &&
      typeof old === 'object' &&
      !Array.isArray(old)
        ? merged(old as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return result;
}

async function readYaml(path: string): Promise<Record<string, unknown>> {
  return parse(await readFile(join(repoRoot(), path), 'utf8')) as Record<string, unknown>;
}

describe('the host chart (helm lint, helm template, values.schema.json)', function () {
  this.timeout(30 * 60_000);
  let helm: Helm;
  let defaults: Record<string, unknown>;

  before(async () => {
    helm = await useHelm();
    defaults = await readYaml(`${HOST_CHART}/values.yaml`);
  });
  after(() => helm?.cleanup());

  for (const [name, values] of VALUE_SETS) {
    describe(name, () => {
      let objects: Rendered[];
      before(async () => {
        objects = await helm.template(
          HOST_CHART,
          values ? { values, includeCrds: true } : { includeCrds: true },
        );
      });

      it('helm lint --strict passes', async () => {
        const args = ['lint', '--strict', join(repoRoot(), HOST_CHART)];
        if (values) args.push('-f', await helm.writeValues(values));
        const result = await helm.run(args);
        assert.strictEqual(result.code, 0, result.stdout + result.stderr);
      });

      it('renders the webhook configuration that buildValidatingWebhookConfiguration builds (rules, matchConditions, failurePolicy, timeouts, the Service it calls)', () => {
        const v = merged(defaults, values) as {
          webhook: {
            failurePolicy: 'Fail' | 'Ignore';
            timeoutSeconds: number;
            excludedNamespaces: string[];
          };
          admission: { setting: string };
          certificates: { mode: string };
        };
        const rendered = oneOf(objects, 'ValidatingWebhookConfiguration', 'voe');
        const labels = { ...rendered.metadata!.labels };
        const annotations = rendered.metadata!.annotations;
        const expected = buildValidatingWebhookConfiguration({
          name: 'voe',
          service: { namespace: 'voe-system', name: 'voe-webhook' },
          failurePolicy: v.webhook.failurePolicy,
          timeoutSeconds: v.webhook.timeoutSeconds,
          settingName: v.admission.setting,
          excludedNamespaces: v.webhook.excludedNamespaces,
          labels,
          ...(annotations ? { annotations } : {}),
        });
        assert.deepStrictEqual(rendered, JSON.parse(JSON.stringify(expected)));
        assert.strictEqual(labels['app.kubernetes.io/name'], 'voe');
        if (v.certificates.mode === 'cert-manager')
          assert.deepStrictEqual(annotations, {
            'cert-manager.io/inject-ca-from': 'voe-system/voe-webhook',
          });
        else assert.isUndefined(annotations);
        // What `voe serve --dev` registers: the same webhooks with a url instead of the Service
        // (and no namespace of its own to leave out).
        const dev = buildValidatingWebhookConfiguration({
          name: 'voe-dev',
          urlBase: 'https://127.0.0.1:9443',
        });
        if (name === 'default values')
          assert.deepStrictEqual(
            (rendered['webhooks'] as Array<Record<string, unknown>>).map(
              ({ clientConfig: _, namespaceSelector: _n, ...rest }) => rest,
            ),
            JSON.parse(
              JSON.stringify(
                dev.webhooks!.map(({ clientConfig: _, namespaceSelector: _n, ...rest }) => rest),
              ),
            ),
          );
        // The PVC and VM webhooks leave kube-system, the release namespace and opted-out ones alone.
        for (const webhook of rendered['webhooks'] as Array<{
          name: string;
          namespaceSelector?: {
            matchExpressions: Array<{ key: string; operator: string; values: string[] }>;
          };
        }>) {
          if (webhook.name.startsWith('setting.')) continue;
          const [names, optOut] = webhook.namespaceSelector!.matchExpressions;
          assert.includeMembers(names!.values, ['kube-system', 'voe-system']);
          assert.deepStrictEqual(optOut, {
            key: 'storage.voe.dev/webhook',
            operator: 'NotIn',
            values: ['disabled'],
          });
        }
      });

      it('runs the webhook locked down: replicas, its priorityClassName, probes on /livez and /readyz, resources and a V8 heap within them, non-root, read-only root, no privileges, seccomp RuntimeDefault', () => {
        const v = merged(defaults, values) as {
          webhook: {
            replicas: number;
            port: number;
            nodeOptions?: string;
            priorityClassName: string;
          };
        };
        const deployment = oneOf(objects, 'Deployment', 'voe-webhook') as unknown as V1Deployment;
        assert.strictEqual(deployment.spec!.replicas, v.webhook.replicas);
        // With failurePolicy Fail, grows wait on these pods: system-cluster-critical by default.
        assert.strictEqual(
          deployment.spec!.template.spec!.priorityClassName,
          v.webhook.priorityClassName || undefined,
        );
        if (values === undefined)
          assert.strictEqual(v.webhook.priorityClassName, 'system-cluster-critical');
        assert.strictEqual(deployment.spec!.strategy?.rollingUpdate?.maxUnavailable, 0);
        const pods: V1PodSpec[] = [
          deployment.spec!.template.spec!,
          ...objectsOf(objects, 'Job').map(
            (job) =>
              (job as unknown as { spec: { template: { spec: V1PodSpec } } }).spec.template.spec,
          ),
          ...objectsOf(objects, 'CronJob').map(
            (cron) =>
              (
                cron as unknown as {
                  spec: { jobTemplate: { spec: { template: { spec: V1PodSpec } } } };
                }
              ).spec.jobTemplate.spec.template.spec,
          ),
        ];
        for (const pod of pods) {
          assert.isTrue(pod.securityContext?.runAsNonRoot);
          assert.isAbove(pod.securityContext?.runAsUser ?? 0, 0);
          assert.strictEqual(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault');
          assert.isNotOk(pod.hostNetwork);
          assert.isNotOk(pod.hostPID);
          for (const container of pod.containers) {
            assert.isTrue(container.securityContext?.readOnlyRootFilesystem, container.name);
            assert.isFalse(container.securityContext?.allowPrivilegeEscalation, container.name);
            assert.deepStrictEqual(container.securityContext?.capabilities?.drop, ['ALL']);
            assert.isUndefined(container.securityContext?.capabilities?.add);
            assert.isOk(container.resources?.requests?.['memory'], container.name);
            assert.isOk(container.resources?.limits?.['memory'], container.name);
          }
        }
        const webhook = deployment.spec!.template.spec!.containers[0]!;
        assertHeapFits(webhook, v.webhook.nodeOptions);
        assert.strictEqual(webhook.readinessProbe?.httpGet?.path, '/readyz');
        assert.strictEqual(webhook.livenessProbe?.httpGet?.path, '/livez');
        assert.strictEqual(webhook.readinessProbe?.httpGet?.scheme, 'HTTPS');
        assert.strictEqual(webhook.ports?.[0]?.containerPort, v.webhook.port);
        assert.isTrue(webhook.args?.includes('--tls-cert-file=/etc/voe/tls/tls.crt'));
        const service = oneOf(objects, 'Service', 'voe-webhook') as unknown as {
          spec: {
            ports: Array<{ port: number; targetPort: string }>;
            selector: Record<string, string>;
          };
        };
        assert.deepStrictEqual(
          service.spec.ports.map((p) => [p.port, p.targetPort]),
          [[443, 'https']],
        );
        assert.deepStrictEqual(service.spec.selector, deployment.spec!.selector.matchLabels);
        const budgets = objectsOf(objects, 'PodDisruptionBudget');
        assert.strictEqual(budgets.length, v.webhook.replicas > 1 ? 1 : 0);
      });

      it('runs the tracker (voe watch) locked down: replicas, its Lease, --enable, probes on /livez and /readyz, a V8 heap within its memory limit, and voe disable as a pre-delete hook with tracker.enable; nothing of it with tracker.enabled false', () => {
        const v = merged(defaults, values) as {
          tracker: {
            enabled: boolean;
            replicas: number;
            enable: boolean;
            port: number;
            guestProbe: string;
            guestProbeNamespaces: string[];
            guestFilesystemGrowth: { enable: boolean };
            nodeOptions?: string;
          };
          admission: { kubevirt: string; setting: string };
        };
        const tracking = objects.filter(
          (o) => o.metadata?.labels?.['app.kubernetes.io/component'] === 'tracker',
        );
        if (!v.tracker.enabled) {
          assert.deepStrictEqual(
            tracking.map((o) => `${o.kind}/${o.metadata!.name}`),
            [],
          );
          return;
        }
        const deployment = oneOf(objects, 'Deployment', 'voe-tracker') as unknown as V1Deployment;
        assert.strictEqual(deployment.spec!.replicas, v.tracker.replicas);
        const pod = deployment.spec!.template.spec!;
        assert.strictEqual(pod.serviceAccountName, 'voe-tracker');
        assert.isTrue(pod.securityContext?.runAsNonRoot);
        assert.strictEqual(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault');
        const tracker = pod.containers[0]!;
        assert.isTrue(tracker.securityContext?.readOnlyRootFilesystem);
        assert.isFalse(tracker.securityContext?.allowPrivilegeEscalation);
        assert.deepStrictEqual(tracker.securityContext?.capabilities?.drop, ['ALL']);
        assert.isOk(tracker.resources?.requests?.['memory']);
        assert.isOk(tracker.resources?.limits?.['memory']);
        assertHeapFits(tracker, v.tracker.nodeOptions);
        assert.strictEqual(tracker.livenessProbe?.httpGet?.path, '/livez');
        assert.strictEqual(tracker.readinessProbe?.httpGet?.path, '/readyz');
        assert.strictEqual(tracker.ports?.[0]?.containerPort, v.tracker.port);
        const [kubevirtNamespace, kubevirtName] = v.admission.kubevirt.split('/');
        const args = tracker.args!;
        assert.strictEqual(args[0], 'watch');
        assert.includeMembers(args, [
          `--port=${v.tracker.port}`,
          '--lease-namespace=voe-system',
          '--lease-name=voe-vmwatcher',
          `--kubevirt-namespace=${kubevirtNamespace}`,
          `--kubevirt-name=${kubevirtName}`,
          `--setting-name=${v.admission.setting}`,
          `--guest-probe=${v.tracker.guestProbe}`,
        ]);
        assert.strictEqual(args.includes('--enable'), v.tracker.enable);
        // The probe reaches only the namespaces the chart grants pods/exec in.
        const namespacesArg = `--guest-probe-namespaces=${v.tracker.guestProbeNamespaces.join(',')}`;
        if (v.tracker.guestProbe === 'none')
          assert.isFalse(args.some((arg) => arg.startsWith('--guest-probe-namespaces')));
        else assert.include(args, namespacesArg);
        // Guest filesystem growth: off by default; on, the flag and a read of Namespaces alone.
        const growth = v.tracker.guestFilesystemGrowth.enable;
        assert.strictEqual(args.includes('--guest-filesystem-growth'), growth);
        const service = oneOf(objects, 'Service', 'voe-tracker') as unknown as {
          spec: { selector: Record<string, string> };
        };
        assert.deepStrictEqual(service.spec.selector, deployment.spec!.selector.matchLabels);
        const hooks = tracking.filter((o) => o.metadata!.name!.startsWith('voe-disable-hook'));
        if (!v.tracker.enable) {
          // Nothing of voe enable's to undo: no voe disable hook, no identity for it.
          assert.deepStrictEqual(hooks, []);
        } else {
          const hook = oneOf(objects, 'Job', 'voe-disable-hook');
          assert.strictEqual(hookOf(hook), 'pre-delete');
          const hookPod = (hook as unknown as { spec: { template: { spec: V1PodSpec } } }).spec
            .template.spec;
          assert.strictEqual(hookPod.serviceAccountName, 'voe-disable-hook');
          assert.deepStrictEqual(hookPod.containers[0]!.args, [
            'disable',
            `--kubevirt-namespace=${kubevirtNamespace}`,
            `--kubevirt-name=${kubevirtName}`,
            `--setting-name=${v.admission.setting}`,
          ]);
          // The hook's identity is a hook too (it exists before the Job and goes after it).
          for (const object of tracking.filter((o) =>
            o.metadata!.name!.startsWith('voe-disable-hook'),
          ))
            assert.strictEqual(
              hookOf(object),
              'pre-delete',
              `${object.kind}/${object.metadata!.name}`,
            );
        }
        // Write access to the KubeVirt CR and the Setting only with --enable.
        const kubevirtRole = oneOf(objects, 'Role', 'voe-tracker-kubevirt') as unknown as {
          rules: Array<{ verbs: string[] }>;
        };
        assert.strictEqual(kubevirtRole.rules[0]!.verbs.includes('update'), v.tracker.enable);
        const clusterRole = oneOf(objects, 'ClusterRole', 'voe-tracker') as unknown as {
          rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
        };
        assert.strictEqual(
          clusterRole.rules.some((rule) => rule.apiGroups.includes('harvesterhci.io')),
          v.tracker.enable,
        );
        const namespaceRules = clusterRole.rules.filter((rule) =>
          rule.resources.includes('namespaces'),
        );
        assert.deepStrictEqual(
          namespaceRules.map((rule) => rule.verbs),
          growth ? [['get', 'list', 'watch']] : [],
        );
        // pods/exec into virt-launcher never cluster-wide: only for the guest probe, a Role in
        // each namespace tracker.guestProbeNamespaces lists.
        assert.isFalse(clusterRole.rules.some((rule) => rule.resources.includes('pods/exec')));
        const probeRoles = objectsOf(objects, 'Role').filter(
          (role) => role.metadata!.name === 'voe-tracker-guest-probe',
        );
        const probed =
          (v.tracker as { guestProbeNamespaces?: string[] }).guestProbeNamespaces ?? [];
        assert.sameMembers(
          probeRoles.map((role) => role.metadata!.namespace!),
          v.tracker.guestProbe === 'pods-exec' ? probed : [],
        );
      });

      it('manages certificates one way: self-managed (voe certs ensure as hooks and a CronJob) or cert-manager', () => {
        const v = merged(defaults, values) as { certificates: { mode: string } };
        const certificates = objectsOf(objects, 'Certificate');
        const cronJobs = objectsOf(objects, 'CronJob');
        // The certificates' hooks (the tracker's pre-delete voe disable hook is checked above, the
        // CRD hook below).
        const hooks = objects.filter(
          (object) =>
            hookOf(object) !== '' &&
            !object.metadata!.name!.startsWith('voe-disable-hook') &&
            !object.metadata!.name!.startsWith('voe-crds-hook'),
        );
        if (v.certificates.mode === 'self-managed') {
          assert.deepStrictEqual(certificates, []);
          assert.deepStrictEqual(
            cronJobs.map((c) => c.metadata!.name),
            ['voe-certs'],
          );
          assert.sameMembers(
            hooks.map((h) => `${h.kind}/${h.metadata!.name}`),
            [
              'ServiceAccount',
              'Role',
              'RoleBinding',
              'ClusterRole',
              'ClusterRoleBinding',
              'Job',
            ].map((k) => `${k}/voe-certs-hook`),
          );
          for (const hook of hooks)
            assert.strictEqual(hookOf(hook), 'pre-install,pre-upgrade,post-install,post-upgrade');
        } else {
          assert.deepStrictEqual(cronJobs, []);
          assert.deepStrictEqual(hooks, []);
          const serving = oneOf(objects, 'Certificate', 'voe-webhook') as unknown as {
            spec: { secretName: string; dnsNames: string[] };
          };
          assert.strictEqual(serving.spec.secretName, 'voe-webhook-tls');
          assert.include(serving.spec.dnsNames, 'voe-webhook.voe-system.svc');
        }
      });

      it('applies the CRD before each install and upgrade: voe crds apply as the hook voe-crds-hook, before the certificates hook, its ClusterRole limited to the CRD by name but for create', () => {
        const hooks = objects.filter((object) => object.metadata!.name === 'voe-crds-hook');
        assert.sameMembers(
          hooks.map((h) => h.kind),
          ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Job'],
        );
        for (const hook of hooks) assert.strictEqual(hookOf(hook), 'pre-install,pre-upgrade');
        const weight = (object: Rendered) =>
          Number(object.metadata!.annotations!['helm.sh/hook-weight']);
        const job = oneOf(objects, 'Job', 'voe-crds-hook');
        for (const other of objects.filter(
          (o) => o.kind === 'Job' && hookOf(o).includes('pre-install') && o !== job,
        ))
          assert.isBelow(weight(job), weight(other), other.metadata!.name);
        const pod = (
          job['spec'] as {
            template: {
              spec: { serviceAccountName: string; containers: Array<{ args: string[] }> };
            };
          }
        ).template.spec;
        assert.strictEqual(pod.serviceAccountName, 'voe-crds-hook');
        assert.deepStrictEqual(pod.containers[0]!.args.slice(0, 2), ['crds', 'apply']);
        assert.deepStrictEqual(oneOf(objects, 'ClusterRole', 'voe-crds-hook')['rules'], [
          {
            apiGroups: ['apiextensions.k8s.io'],
            resources: ['customresourcedefinitions'],
            resourceNames: ['volumeexpansions.storage.voe.dev'],
            verbs: ['get', 'patch', 'update'],
          },
          {
            apiGroups: ['apiextensions.k8s.io'],
            resources: ['customresourcedefinitions'],
            verbs: ['create'],
          },
        ]);
      });

      it('installs the VolumeExpansion CRD as manifests/crds/volumeexpansion.yaml has it', async () => {
        const [crd] = objectsOf(objects, 'CustomResourceDefinition');
        const manifest = parse(
          await readFile(join(repoRoot(), 'manifests/crds/volumeexpansion.yaml'), 'utf8'),
        ) as unknown;
        assert.deepStrictEqual(crd, manifest);
        assert.strictEqual(objectsOf(objects, 'CustomResourceDefinition').length, 1);
      });
    });
  }

  it("the chart's CRD file is manifests/crds/volumeexpansion.yaml, byte for byte", async () => {
    const [chart, manifest] = await Promise.all([
      readFile(join(repoRoot(), HOST_CHART, 'crds/volumeexpansion.yaml'), 'utf8'),
      readFile(join(repoRoot(), 'manifests/crds/volumeexpansion.yaml'), 'utf8'),
    ]);
    assert.strictEqual(chart, manifest);
  });

  const REFUSED: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'an unknown key (a typo)',
      { webhook: { replica: 2 } },
      /additional properties 'replica' not allowed/,
    ],
    ['no replicas', { webhook: { replicas: 0 } }, /replicas': minimum: got 0, want 1/],
    [
      'a timeout the API server refuses',
      { webhook: { timeoutSeconds: 31 } },
      /timeoutSeconds': maximum: got 31, want 30/,
    ],
    ['another failurePolicy', { webhook: { failurePolicy: 'Retry' } }, /failurePolicy/],
    [
      'a guest filesystem growth switch that is not a boolean',
      { tracker: { guestFilesystemGrowth: { enable: 'yes' } } },
      /enable/,
    ],
    ['a Setting name no object can have', { admission: { setting: 'Not_A_Name' } }, /setting/],
    ['a KubeVirt CR without its namespace', { admission: { kubevirt: 'kubevirt' } }, /kubevirt/],
    ['another Longhorn mode', { admission: { longhorn: 'maybe' } }, /longhorn/],
    ['another certificate mode', { certificates: { mode: 'vault' } }, /mode/],
    ['a privileged port', { webhook: { port: 443 } }, /port': minimum: got 443, want 1,?024/],
    ['a digest that is not sha256', { image: { digest: 'latest' } }, /digest/],
    [
      'a cert-manager issuer of another kind',
      { certificates: { certManager: { issuerRef: { kind: 'Vault', name: 'x' } } } },
      /kind/,
    ],
  ];
  for (const [what, values, message] of REFUSED) {
    it(`values.schema.json refuses ${what}`, async () => {
      const error = await helm.template(HOST_CHART, { values }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      assert.isDefined(error, 'helm template should have failed');
      assert.match(error!.message, /values don't meet the specifications of the schema/);
      assert.match(error!.message, message);
    });
  }

  const INCONSISTENT: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'a grace period no longer than the shutdown delay',
      { webhook: { shutdownDelaySeconds: 30, terminationGracePeriodSeconds: 30 } },
      /webhook\.terminationGracePeriodSeconds \(30\) must exceed webhook\.shutdownDelaySeconds \(30\)/,
    ],
    [
      'guest filesystem growth without the guest probe it runs through',
      { tracker: { guestFilesystemGrowth: { enable: true } } },
      /tracker\.guestFilesystemGrowth\.enable needs tracker\.guestProbe pods-exec \(it is none\)/,
    ],
    [
      'a renewal window as long as the certificate',
      { certificates: { selfManaged: { certValidityDays: 30, renewBeforeDays: 30 } } },
      /renewBeforeDays \(30\) must be shorter than certValidityDays \(30\)/,
    ],
  ];
  for (const [what, values, message] of INCONSISTENT) {
    it(`helm template refuses ${what}`, async () => {
      const error = await helm.template(HOST_CHART, { values }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      assert.match(error?.message ?? 'rendered', message);
    });
  }

  it("the webhook's ClusterRole and Roles are manifests/webhook-rbac.yaml's rules (default values)", async () => {
    const objects = await helm.template(HOST_CHART);
    const manifest = parseAllDocuments(
      await readFile(join(repoRoot(), 'manifests/webhook-rbac.yaml'), 'utf8'),
    ).map((doc) => doc.toJS() as Rendered);
    for (const [kind, name, namespace] of [
      ['ClusterRole', 'voe-webhook', undefined],
      ['Role', 'voe-webhook-kubevirt', 'harvester-system'],
      ['Role', 'voe-webhook-longhorn', 'longhorn-system'],
    ] as const) {
      const chart = oneOf(objects, kind, name);
      const plain = oneOf(manifest, kind, name);
      assert.strictEqual(chart.metadata!.namespace, namespace);
      assert.deepStrictEqual(chart['rules'], plain['rules'], `${kind} ${name}`);
    }
  });

  it('an unquoted on or off in a values file (YAML 1.1 booleans) means the Longhorn mode of that name', async () => {
    for (const [text, mode, roles] of [
      ['off', 'off', 0],
      ['on', 'on', 1],
    ] as const) {
      const file = await helm.writeValues({});
      const { writeFile } = await import('node:fs/promises');
      await writeFile(file, `admission:\n  longhorn: ${text}\n`);
      const result = await helm.run([
        'template',
        'voe',
        join(repoRoot(), HOST_CHART),
        '-n',
        'voe-system',
        '-f',
        file,
      ]);
      assert.strictEqual(result.code, 0, result.stderr);
      const objects = parseAllDocuments(result.stdout).map((doc) => doc.toJS() as Rendered);
      const deployment = oneOf(objects, 'Deployment', 'voe-webhook') as unknown as V1Deployment;
      assert.isTrue(
        deployment.spec!.template.spec!.containers[0]!.args!.includes(`--longhorn=${mode}`),
      );
      assert.strictEqual(objectsOf(objects, 'Role', 'voe-webhook-longhorn').length, roles);
    }
  });

  it("the PrometheusRule: every suggested alert parses as PromQL (Prometheus's parser), is documented in docs/metrics.md, reads metrics voe serves, and can be turned off", async () => {
    const objects = await helm.template(HOST_CHART, {
      values: { metrics: { prometheusRule: { enabled: true } } },
    });
    const rule = oneOf(objects, 'PrometheusRule', 'voe') as unknown as {
      spec: { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
    };
    const rules = rule.spec.groups.flatMap((group) => group.rules);
    const docs = await readFile(join(repoRoot(), 'docs/metrics.md'), 'utf8');
    const served = [
      await readFile(join(repoRoot(), 'src/webhook/webhook-metrics.ts'), 'utf8'),
      await readFile(join(repoRoot(), 'src/vmwatcher/tracker-metrics.ts'), 'utf8'),
    ].join('\n');
    assert.strictEqual(rules.length, 9);
    assert.includeMembers(
      rules.map((r) => r.alert),
      ['VoeTrackerDown', 'VoeTrackerExpansionsStuck'],
    );
    for (const { alert, expr } of rules) {
      assert.include(docs, `\`${alert}\``);
      for (const metric of expr.match(/\bvoe_[a-z_]+/g) ?? [])
        assert.include(served, `'${metric}'`, `${alert} reads ${metric}`);
    }
    // Prometheus's own parser accepts every expression (and refuses a broken one: it is a real check).
    const parsed = await checkPromql(await buildPromqlCheck(), [
      ...rules.map((r) => r.expr),
      'sum(rate(x[5m]) >',
    ]);
    assert.deepStrictEqual(
      parsed.slice(0, -1),
      rules.map(() => undefined),
    );
    assert.match(parsed[parsed.length - 1] ?? '', /parse error/);
    const alerts = Object.keys(
      (defaults['metrics'] as Record<string, Record<string, unknown>>)['prometheusRule']![
        'alerts'
      ] as Record<string, boolean>,
    );
    const off = await helm.template(HOST_CHART, {
      values: {
        metrics: {
          prometheusRule: {
            enabled: true,
            alerts: Object.fromEntries(alerts.map((a) => [a, false])),
          },
        },
      },
    });
    const none = oneOf(off, 'PrometheusRule', 'voe') as unknown as {
      spec: { groups: Array<{ rules: unknown[] }> };
    };
    assert.deepStrictEqual(
      none.spec.groups.flatMap((group) => group.rules),
      [],
    );
  });

  it('every hook Job ends within the 300 s Helm (and helm-controller) waits for a hook, retries included', async () => {
    let checked = 0;
    for (const [name, values] of VALUE_SETS) {
      const objects = await helm.template(HOST_CHART, {
        values: { ...(values ?? {}), tracker: { ...(values?.['tracker'] ?? {}), enable: true } },
      });
      const jobs = objectsOf(objects, 'Job').filter((job) => hookOf(job) !== '');
      checked += jobs.length;
      for (const job of jobs) {
        const deadline = (job['spec'] as { activeDeadlineSeconds?: number }).activeDeadlineSeconds;
        assert.isDefined(deadline, `${name}: ${job.metadata!.name}`);
        assert.isBelow(deadline!, 300, `${name}: ${job.metadata!.name}`);
      }
    }
    assert.isAtLeast(checked, 2, 'the certificates hook and the voe disable hook');
  });

  it('ServiceMonitor and PrometheusRule on auto render only when the cluster serves their API; on, they render offline (helm template, lint)', async () => {
    const auto = {
      metrics: { serviceMonitor: { enabled: 'auto' }, prometheusRule: { enabled: 'auto' } },
    };
    const kinds = (objects: Rendered[]) =>
      objects
        .map((o) => o.kind!)
        .filter((kind) => ['ServiceMonitor', 'PrometheusRule'].includes(kind));
    assert.sameMembers(kinds(await helm.template(HOST_CHART, { values: auto })), [
      'ServiceMonitor',
      'ServiceMonitor',
      'PrometheusRule',
    ]);
    assert.deepStrictEqual(
      kinds(await helm.template(HOST_CHART, { values: auto, apiVersions: [] })),
      [],
    );
    const on = {
      metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true } },
    };
    assert.lengthOf(kinds(await helm.template(HOST_CHART, { values: on, apiVersions: [] })), 3);
  });

  it('the Harvester Addon (manifests/addon.yaml) installs this chart: its name and version, experimental, and valuesContent the schema accepts', async () => {
    const text = await readFile(join(repoRoot(), 'manifests/addon.yaml'), 'utf8');
    const docs = parseAllDocuments(text).map((doc) => doc.toJS() as Rendered);
    const addon = docs.find((doc) => doc.kind === 'Addon')!;
    const chart = await readYaml(`${HOST_CHART}/Chart.yaml`);
    assert.strictEqual(addon.apiVersion, 'harvesterhci.io/v1beta1');
    assert.strictEqual(addon.metadata!.labels!['addon.harvesterhci.io/experimental'], 'true');
    const spec = addon['spec'] as Record<string, unknown>;
    assert.sameMembers(Object.keys(spec), ['repo', 'chart', 'version', 'valuesContent', 'enabled']);
    assert.strictEqual(spec['chart'], chart['name']);
    assert.strictEqual(spec['version'], chart['version']);
    assert.isBoolean(spec['enabled']);
    assert.isString(spec['valuesContent']);
    assert.match(String(spec['repo']), /^https:\/\//);
    const namespace = addon.metadata!.namespace!;
    assert.deepStrictEqual(
      docs.filter((doc) => doc.kind === 'Namespace').map((doc) => doc.metadata!.name),
      [namespace],
    );
    // Harvester's helm-controller installs the chart with valuesContent as its values file.
    const values = parse(String(spec['valuesContent'])) as Record<string, unknown>;
    const objects = await helm.template(HOST_CHART, { values, namespace });
    assert.strictEqual(oneOf(objects, 'Deployment', 'voe-webhook').metadata!.namespace, namespace);
    // The image the nodes pull is the Addon's to say (a registry of the site's own).
    const image = values['image'] as { repository: string; tag: string };
    assert.strictEqual(image.tag, chart['appVersion']);
    assert.strictEqual(
      (oneOf(objects, 'Deployment', 'voe-webhook') as unknown as V1Deployment).spec!.template.spec!
        .containers[0]!.image,
      `${image.repository}:${image.tag}`,
    );
  });
});
