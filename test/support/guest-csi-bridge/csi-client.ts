import { credentials, loadPackageDefinition, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import {
  csiProtoPath,
  PROTO_LOADER_OPTIONS,
} from '../../../src/guest-csi-bridge/proto/load-csi-services.js';

type Service = 'Identity' | 'Controller' | 'Node';
type UnaryMethod = (
  request: unknown,
  options: { deadline?: Date },
  callback: (error: ServiceError | null, response: unknown) => void,
) => void;

/** A CSI client over a unix socket, through our csi.proto (the same wire names as every CO's). */
export interface CsiClient {
  /** Calls `service.method`; resolves with the answer, rejects with the gRPC ServiceError (code, details). */
  call<T = Record<string, unknown>>(
    service: Service,
    method: string,
    request?: unknown,
    options?: { timeoutMs?: number },
  ): Promise<T>;
  close(): void;
}

export function createCsiClient(socketPath: string): CsiClient {
  const definition = loadSync(csiProtoPath(), PROTO_LOADER_OPTIONS);
  const v1 = (
    loadPackageDefinition(definition) as unknown as {
      csi: { v1: Record<Service, new (address: string, creds: unknown) => Client> };
    }
  ).csi.v1;
  const address = `unix://${socketPath}`;
  const clients: Record<Service, Client> = {
    Identity: new v1.Identity(address, credentials.createInsecure()),
    Controller: new v1.Controller(address, credentials.createInsecure()),
    Node: new v1.Node(address, credentials.createInsecure()),
  };
  return {
    call<T>(
      service: Service,
      method: string,
      request: unknown = {},
      options: { timeoutMs?: number } = {},
    ) {
      const client = clients[service] as unknown as Record<string, UnaryMethod>;
      const fn = client[method];
      if (!fn) return Promise.reject(new Error(`no method ${service}.${method}`));
      return new Promise<T>((resolve, reject) => {
        fn.call(
          client,
          request,
          options.timeoutMs ? { deadline: new Date(Date.now() + options.timeoutMs) } : {},
          (error, response) => (error ? reject(error) : resolve(response as T)),
        );
      });
    },
    close() {
      for (const client of Object.values(clients)) client.close();
    },
  };
}
