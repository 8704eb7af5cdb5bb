/**
 * The guest probe's RBAC as the host chart binds it, on a real kube-apiserver: with
 * tracker.guestProbe pods-exec, the tracker's ServiceAccount may exec into pods (get, as a
 * WebSocket exec is authorized before Kubernetes 1.35, and create) only in the namespaces
 * tracker.guestProbeNamespaces lists, and nowhere else; by default (guestProbe none) nowhere. The
 * VMIs' filesystemlist is never granted: the probe asks the guest agent through virsh itself. Answers are SubjectAccessReviews for the chart's own
 * ServiceAccount, as the API server's authorizer gives them (not admin credentials).
 */
import { before, after, describe, it } from 'mocha';
import { assert } from 'chai';
import {
  describeAccess,
  ensureNamespaces,
  isAllowed,
  serverSideApply,
  serviceAccount,
  useChartControlPlane,
  type Access,
} from '../../support/charts/cluster.js';
import { HOST_CHART, useHelm, type Helm, type Rendered } from '../../support/charts/render.js';
import { HOST_NAMESPACES } from '../../support/charts/host-values.js';

const NS = 'voe-system';
const RBAC_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
const PROBED = ['vms-a', 'vms-b'];
const NOT_PROBED = ['default', 'kube-system', 'vms-c'];

const exec = (verb: string, namespace: string): Access => ({
  verb,
  resource: 'pods',
  subresource: 'exec',
  namespace,
});
const filesystemList = (namespace: string): Access => ({
  verb: 'get',
  group: 'subresources.kubevirt.io',
  resource: 'virtualmachineinstances',
  subresource: 'filesystemlist',
  namespace,
});

describe("the guest probe's RBAC as the host chart binds it", function () {
  this.timeout(20 * 60_000);
  const cp = useChartControlPlane();
  let helm: Helm;
  const tracker = serviceAccount(NS, 'voe-tracker');

  before(async () => {
    helm = await useHelm();
    await ensureNamespaces(cp.current.kubeConfig, [...HOST_NAMESPACES, ...PROBED, 'vms-c']);
  });
  after(() => helm?.cleanup());

  async function applyRbac(values: Record<string, unknown> | undefined): Promise<void> {
    const rendered: Rendered[] = await helm.template(HOST_CHART, values ? { values } : {});
    for (const object of rendered.filter((o) => RBAC_KINDS.includes(o.kind ?? '')))
      await serverSideApply(cp.current.kubeConfig, object);
  }

  async function wrongAnswers(allowed: Access[], denied: Access[]): Promise<string[]> {
    const wrong: string[] = [];
    for (const access of allowed)
      if (!(await isAllowed(cp.current.kubeConfig, tracker, access)))
        wrong.push(`denied: ${describeAccess(access)}`);
    for (const access of denied)
      if (await isAllowed(cp.current.kubeConfig, tracker, access))
        wrong.push(`allowed: ${describeAccess(access)}`);
    return wrong;
  }

  it('default values (guestProbe none): no pods/exec anywhere', async () => {
    await applyRbac(undefined);
    const everywhere = [...PROBED, ...NOT_PROBED];
    assert.deepStrictEqual(
      await wrongAnswers(
        [],
        everywhere.flatMap((ns) => [exec('get', ns), exec('create', ns), filesystemList(ns)]),
      ),
      [],
    );
  });

  it('guestProbe pods-exec: get and create on pods/exec only in the listed namespaces', async () => {
    await applyRbac({ tracker: { guestProbe: 'pods-exec', guestProbeNamespaces: PROBED } });
    assert.deepStrictEqual(
      await wrongAnswers(
        PROBED.flatMap((ns) => [exec('get', ns), exec('create', ns)]),
        [
          ...PROBED.map((ns) => filesystemList(ns)),
          ...NOT_PROBED.flatMap((ns) => [exec('get', ns), exec('create', ns), filesystemList(ns)]),
          { verb: 'create', resource: 'pods', subresource: 'exec' },
          { verb: 'create', resource: 'pods', subresource: 'attach', namespace: PROBED[0] },
          { verb: 'delete', resource: 'pods', namespace: PROBED[0] },
        ],
      ),
      [],
    );
  });
});
