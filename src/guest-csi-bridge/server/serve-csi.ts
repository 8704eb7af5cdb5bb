import { mkdir, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  Server,
  ServerCredentials,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { isVoeError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { grpcStatusOf } from '../errors/grpc-status-of.js';
import { loadCsiServices } from '../proto/load-csi-services.js';
import type { CallContext } from './call-context.js';
import { parseEndpoint } from './parse-endpoint.js';
import { removeStaleSocket } from './remove-stale-socket.js';
import type { ServiceHandlers, UnaryHandler } from './service-handlers.js';

export interface ServeCsiOptions {
  /** `unix:///abs/path.sock`. */
  endpoint: string;
  identity: ServiceHandlers;
  /** Served when given. */
  controller?: ServiceHandlers;
  /** Served when given. */
  node?: ServiceHandlers;
  log: Logger;
}

export interface CsiServer {
  socketPath: string;
  /** Stops accepting calls, lets running ones finish for up to `graceMs` (then cancels them), removes the socket. */
  stop(graceMs?: number): Promise<void>;
}

/** How much of the time left before a call's deadline the handler gives back, to answer before the client gives up (at most 1 s). */
function deadlineMargin(remainingMs: number): number {
  return Math.min(1_000, remainingMs * 0.1);
}

function deadlineOf(call: ServerUnaryCall<unknown, unknown>): number | undefined {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? ms : undefined;
}

/** A grpc-js unary implementation around `handler`: cancellation and deadline as an AbortSignal, errors mapped by grpcStatusOf, requests logged with secrets redacted. */
function unary(method: string, handler: UnaryHandler, log: Logger) {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): void => {
    const controller = new AbortController();
    const deadline = deadlineOf(call);
    let timer: NodeJS.Timeout | undefined;
    if (deadline !== undefined) {
      const remaining = deadline - Date.now();
      timer = setTimeout(
        () => controller.abort('deadline'),
        Math.max(0, remaining - deadlineMargin(remaining)),
      );
    }
    call.on('cancelled', () => controller.abort('cancelled'));
    const started = performance.now();
    const callLog = log.child({ method });
    callLog.debug({ request: call.request }, 'call');
    const ctx: CallContext = { signal: controller.signal, deadline, log: callLog };
    handler(call.request, ctx).then(
      (response) => {
        clearTimeout(timer);
        callLog.debug({ ms: Math.round(performance.now() - started) }, 'answered');
        callback(null, response);
      },
      (error: unknown) => {
        clearTimeout(timer);
        const status = grpcStatusOf(error);
        const ms = Math.round(performance.now() - started);
        if (isVoeError(error))
          callLog.warn({ ms, grpcCode: status.code, error: status.details }, 'refused');
        else callLog.error({ ms, err: error }, 'failed unexpectedly');
        callback({ code: status.code, details: status.details });
      },
    );
  };
}

function implementation(
  definition: ServiceDefinition,
  handlers: ServiceHandlers,
  log: Logger,
): UntypedServiceImplementation {
  const out: UntypedServiceImplementation = {};
  for (const method of Object.keys(definition)) {
    const handler = handlers[method];
    if (handler) out[method] = unary(method, handler, log);
  }
  return out;
}

/**
 * Serves the CSI services on the endpoint's unix socket (a stale socket left by a killed driver
 * is removed first; its directory is made). Resolves once it serves.
 */
export async function serveCsi(options: ServeCsiOptions): Promise<CsiServer> {
  const socketPath = parseEndpoint(options.endpoint);
  await mkdir(dirname(socketPath), { recursive: true });
  await removeStaleSocket(socketPath);
  const services = loadCsiServices();
  const server = new Server();
  server.addService(
    services.Identity,
    implementation(services.Identity, options.identity, options.log),
  );
  if (options.controller)
    server.addService(
      services.Controller,
      implementation(services.Controller, options.controller, options.log),
    );
  if (options.node)
    server.addService(services.Node, implementation(services.Node, options.node, options.log));
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    );
  });
  return {
    socketPath,
    async stop(graceMs = 5_000) {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      await unlink(socketPath).catch(() => undefined);
    },
  };
}
