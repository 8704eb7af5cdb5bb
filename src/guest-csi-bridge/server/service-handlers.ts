import type { CallContext } from './call-context.js';

/** One unary RPC: the decoded request in, the answer out (a thrown error is mapped by grpcStatusOf). */
export type UnaryHandler = (request: unknown, ctx: CallContext) => Promise<unknown>;

/** The handlers of one service, by RPC name as in csi.proto. */
export type ServiceHandlers = Record<string, UnaryHandler>;
