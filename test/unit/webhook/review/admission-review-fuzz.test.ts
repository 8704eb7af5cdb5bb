import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../../support/cleanup.js';
import { Agent } from 'node:https';
import type {
  AdmissionVerdict,
  Validator,
} from '../../../../src/admission/validators/validator.js';
import { createWebhookServer } from '../../../../src/webhook/create-webhook-server.js';
import { parseAdmissionReview } from '../../../../src/webhook/review/parse-admission-review.js';
import { captureLogger } from '../../../support/capture-logger.js';
import { httpsRequest, writeServingFiles } from '../../../support/webhook/webhook-client.js';
import {
  mutatedReview,
  randomJson,
  requestBody,
  validReview,
} from '../../../support/webhook/admission-review-arbitraries.js';
import fc from 'fast-check';

function uidOf(value: unknown): unknown {
  return (value as { request?: { uid?: unknown } } | null)?.request?.uid;
}

it('parseAdmissionReview never throws and answers ok only with the request uid (50,000 runs)', () => {
  fc.assert(
    fc.property(fc.oneof(validReview, mutatedReview, randomJson, fc.anything()), (input) => {
      const parsed = parseAdmissionReview(input);
      if (parsed.ok) {
        assert.strictEqual(parsed.request.uid, uidOf(input));
        assert.ok(typeof parsed.request.uid === 'string' && parsed.request.uid.length > 0);
        assert.ok(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(parsed.request.operation));
      } else {
        assert.ok(typeof parsed.message === 'string' && parsed.message.length > 0);
      }
    }),
    { numRuns: 50_000 },
  );
});

it('every generated valid review is accepted (5,000 runs)', () => {
  fc.assert(
    fc.property(validReview, (review) => {
      const parsed = parseAdmissionReview(JSON.parse(JSON.stringify(review)));
      assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
      assert.strictEqual(parsed.request.uid, review.request.uid);
    }),
    { numRuns: 5_000 },
  );
});

/** Reads nested fields like a real validator would, sometimes throws, sometimes returns odd verdicts. */
const chaoticValidator: Validator = {
  name: 'pvc-resize',
  path: '/validate/pvc-resize',
  validate(request): AdmissionVerdict {
    const storage = (
      request.object as { spec?: { resources?: { requests?: { storage?: unknown } } } } | null
    )?.spec?.resources?.requests?.storage;
    if (request.uid.endsWith('7'))
      throw new Error(`validator exploded on ${String(storage).slice(0, 20)}`);
    if (typeof storage === 'string' && storage.startsWith('-'))
      return {
        allowed: false,
        code: 422,
        reason: 'Invalid',
        message: 'negative',
        decision: 'negative',
        warnings: [storage],
      };
    return {
      allowed: request.operation !== 'DELETE',
      decision: 'fuzz',
      warnings: request.name ? [request.name] : [],
    };
  },
};

it('the HTTPS server answers every generated body with 400/413 + Status or 200 + AdmissionReview with the same uid (2,500 runs)', async () => {
  const files = await writeServingFiles();
  const logs = captureLogger('fatal');
  const server = createWebhookServer({
    validators: [chaoticValidator],
    tls: files,
    ready: () => true,
    logger: logs.logger,
  });
  const { port } = await server.listen(0, '127.0.0.1');
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  onCleanup(async () => {
    agent.destroy();
    await server.close();
    await files.cleanup();
  });

  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/octet-stream',
  );
  await fc.assert(
    fc.asyncProperty(requestBody, contentType, async (body, type) => {
      const raw =
        'raw' in body
          ? Buffer.from(body.raw)
          : Buffer.from(JSON.stringify(body.value) ?? '', 'utf8');
      const res = await httpsRequest(port, files.ca.certificatePem, {
        path: '/validate/pvc-resize',
        body: raw,
        agent,
        headers: { 'content-type': type },
      });
      const json = res.json() as Record<string, unknown>;
      if (res.status === 200) {
        let sent: unknown;
        try {
          sent = JSON.parse(raw.toString('utf8'));
        } catch {
          assert.fail(`200 for a body that is not JSON: ${res.body}`);
        }
        assert.strictEqual(json['apiVersion'], 'admission.k8s.io/v1');
        assert.strictEqual(json['kind'], 'AdmissionReview');
        const response = json['response'] as {
          uid: unknown;
          allowed: unknown;
          status?: { code: unknown; message: unknown; reason: unknown };
          warnings?: string[];
        };
        assert.strictEqual(response.uid, uidOf(sent));
        assert.strictEqual(typeof response.allowed, 'boolean');
        if (response.allowed === false) {
          assert.strictEqual(typeof response.status?.code, 'number');
          assert.ok(
            typeof response.status?.message === 'string' && response.status.message.length > 0,
          );
          assert.strictEqual(typeof response.status?.reason, 'string');
        } else {
          assert.isUndefined(response.status);
        }
        for (const w of response.warnings ?? []) assert.ok(Array.from(w).length <= 120);
      } else {
        assert.ok(
          res.status === 400 || (res.status === 413 && raw.length > 3 * 1024 * 1024),
          `unexpected status ${res.status}: ${res.body.slice(0, 200)}`,
        );
        assert.strictEqual(json['kind'], 'Status');
        assert.strictEqual(json['code'], res.status);
        assert.ok(typeof json['message'] === 'string' && (json['message'] as string).length > 0);
      }
    }),
    { numRuns: 2_500 },
  );

  const alive = await httpsRequest(port, files.ca.certificatePem, {
    path: '/livez',
    method: 'GET',
    agent,
  });
  assert.strictEqual(alive.body, 'ok');
});
