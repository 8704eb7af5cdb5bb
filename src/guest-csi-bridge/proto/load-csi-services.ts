import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/** proto-loader's reading of the messages: names as written, int64 as decimal strings, enums by name, every field present, oneof names set. */
export const PROTO_LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;

/** The CSI proto in the package (src/guest-csi-bridge/proto/csi.proto, also beside the compiled code's source tree). */
export function csiProtoPath(): string {
  return fileURLToPath(
    new URL('../../../../src/guest-csi-bridge/proto/csi.proto', import.meta.url),
  );
}

/** The three CSI services the bridge serves, as grpc-js service definitions. */
export interface CsiServices {
  Identity: ServiceDefinition;
  Controller: ServiceDefinition;
  Node: ServiceDefinition;
}

let loaded: CsiServices | undefined;

/** Reads csi.proto once (package csi.v1) and returns its services. */
export function loadCsiServices(): CsiServices {
  if (loaded) return loaded;
  const definition = loadSync(csiProtoPath(), PROTO_LOADER_OPTIONS);
  const grpcObject = loadPackageDefinition(definition) as unknown as {
    csi: { v1: Record<keyof CsiServices, { service: ServiceDefinition }> };
  };
  const v1 = grpcObject.csi.v1;
  loaded = {
    Identity: v1.Identity.service,
    Controller: v1.Controller.service,
    Node: v1.Node.service,
  };
  return loaded;
}
