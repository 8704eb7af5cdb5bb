import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { CheckError } from '../../../src/webhook/index.js';
import { readOptionalList } from '../../../src/webhook/read-optional.js';
import { scriptedHttpServer } from '../../support/scripted-http-server.js';

test('a list answered 404 reads as empty only when discovery confirms the resource is not served (voe check, the demo survey)', async (t) => {
  let discovery: 'lists' | 'absent' | '404' | '500' = 'lists';
  const kubeConfig = await scriptedHttpServer(t, (req, res) => {
    const json = (code: number, body: unknown): void => { res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body)); };
    if (req.url === '/apis/kubevirt.io/v1') {
      if (discovery === '404') json(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' });
      else if (discovery === '500') json(500, { kind: 'Status', code: 500, message: 'etcd timeout' });
      else json(200, { kind: 'APIResourceList', resources: discovery === 'lists' ? [{ name: 'virtualmachines' }] : [{ name: 'kubevirts' }] });
      return;
    }
    json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
  });
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };
  const read = () => readOptionalList('VirtualMachines in default', kubeConfig, VMS,
    () => custom.listNamespacedCustomObject({ ...VMS, namespace: 'default' }));

  await assert.rejects(read(), (error: unknown) => error instanceof CheckError && error.code === 'CHECK_API_FAILED' &&
    /answered 404 although the cluster serves virtualmachines\.kubevirt\.io \(discovery lists it\).*Try again\./.test(error.message));
  discovery = '500';
  await assert.rejects(read(), (error: unknown) => error instanceof CheckError && error.code === 'CHECK_API_FAILED' && /discovery could not be read/.test(error.message));
  discovery = 'absent';
  assert.equal(await read(), undefined);
  discovery = '404';
  assert.equal(await read(), undefined);
});
