/**
 * A test actor standing for a node's kubelet as far as pods/exec goes: an HTTPS server registered
 * as a Node (status.addresses InternalIP 127.0.0.1, status.daemonEndpoints.kubeletEndpoint.Port its
 * port), so that the real kube-apiserver proxies pods/exec of the pods bound to that node to it.
 *
 * What it imitates (Kubernetes v1.33):
 * - the kube-apiserver's side: pkg/registry/core/pod/strategy.go streamLocation builds
 *   https://<node address>:<kubelet port>/exec/<namespace>/<pod>/<container>?command=...&output=1
 *   &error=1 (streamParams; input=1 and tty=1 when asked); pkg/kubelet/client/kubelet_client.go
 *   sends no client certificate without --kubelet-client-certificate and, without
 *   --kubelet-certificate-authority, does not verify the kubelet's serving certificate
 *   (transportConfig: no CA, TLS.Insecure), so a self-signed one does here;
 * - the kubelet: pkg/kubelet/server/server.go getExec (the pod must be one the kubelet runs:
 *   GetPodByName, else 404 "pod does not exist"; at least one of stdin, stdout, stderr:
 *   remotecommand NewOptions, else 400) hands the stream to the runtime's streaming server, which
 *   serves it with k8s.io/kubelet pkg/cri/streaming/remotecommand ServeExec;
 * - ServeExec over WebSocket (websocket.go createWebSocketStreams with
 *   k8s.io/apimachinery wsstream.NewConn): the protocol is the first the client offers among
 *   "v4.channel.k8s.io", "channel.k8s.io" and "" (the kubelet speaks no v5 over WebSocket; the
 *   base64 variants are not served here), each binary message is one channel byte (0 stdin,
 *   1 stdout, 2 stderr, 3 error/status, 4 resize) then the data; an empty message on stdout first;
 *   after the command, v4 writes the Status JSON on channel 3 (Success, or Failure with reason
 *   NonZeroExitCode and one cause of type ExitCode whose message is the exit code; InternalError
 *   when the command could not be run), pre-v4 protocols only a failure's message; then the
 *   connection closes;
 * - ServeExec over SPDY/3.1 (httpstream.go createHTTPStreamStreams; spdy-exec-streams.ts), as a
 *   kube-apiserver with TranslateStreamCloseWebsocketRequests (beta, on by default since 1.30)
 *   reaches the kubelet for a v5.channel.k8s.io WebSocket client (pkg/registry/core/pod/rest/
 *   subresources.go ExecREST.Connect, k8s.io/apiserver util/proxy StreamTranslatorHandler: a POST
 *   with Upgrade: SPDY/3.1 and X-Stream-Protocol-Version v5.channel.k8s.io down to
 *   channel.k8s.io): the same channels as SPDY streams, the same Status on the error stream.
 *   With the gate off the API server proxies the client's WebSocket upgrade as it is
 *   (UpgradeAwareHandler) and the WebSocket side above answers.
 *
 * The command runs with execFile (argv, never a shell), with `binDir` first on PATH (a fake virsh:
 * fake-virsh.ts).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound, requestJson, resourcePath } from '../../../src/kube/index.js';
import type { Pod } from '../../../src/model/index.js';
import { createCertificateAuthority, issueServingCertificate } from '../../../src/tls/index.js';
import { SpdyExecStreams } from './spdy-exec-streams.js';

const NODES = { group: '', version: 'v1', plural: 'nodes' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
/** RFC 6455's GUID for Sec-WebSocket-Accept. */
const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** The protocols the kubelet's WebSocket exec serves in binary (createWebSocketStreams). */
const V4 = 'v4.channel.k8s.io';
const BINARY_PROTOCOLS = [V4, 'channel.k8s.io', ''];
/** The kubelet's SPDY protocols (remotecommand SupportedStreamingProtocols). */
const SPDY_PROTOCOLS = [V4, 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;

/** One exec the actor ran. */
export interface ActorExec {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
  /** How the API server reached the actor: "websocket" or "spdy/3.1". */
  upgrade: string;
}

/** The streams an exec asked for (remotecommand Options). */
interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** An upgraded exec connection: channel writes, whether the protocol is v4, the end. */
interface ExecStreams {
  readonly v4: boolean;
  write(channel: number, data: Buffer): void;
  close(): void;
}

/**
 * ServeExec's WebSocket side (createWebSocketStreams): the handshake, the empty message on the
 * lowest writable channel, then channel messages; 'refused' when no protocol is shared.
 */
function webSocketStreams(
  req: IncomingMessage,
  socket: Duplex,
  options: StreamOptions,
): ExecStreams | 'refused' {
  const offered = (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const protocol = (offered.length === 0 ? [''] : offered).find((p) =>
    BINARY_PROTOCOLS.includes(p),
  );
  if (protocol === undefined) {
    refuse(
      socket,
      400,
      'Bad Request',
      `requested protocol(s) are not supported: ${offered.join(', ')}`,
    );
    return 'refused';
  }
  const accept = createHash('sha1')
    .update(`${req.headers['sec-websocket-key'] ?? ''}${WEBSOCKET_GUID}`)
    .digest('base64');
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n` +
      (protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : '') +
      '\r\n',
  );
  // Frames from the client (stdin, resize, its close) are not needed by the commands run here.
  socket.on('data', () => undefined);
  socket.write(
    channelMessage(options.stdout ? STDOUT : options.stderr ? STDERR : ERROR, Buffer.alloc(0)),
  );
  return {
    v4: protocol === V4,
    write: (channel, data) => socket.write(channelMessage(channel, data)),
    close: () => {
      const close = Buffer.alloc(2);
      close.writeUInt16BE(1000, 0);
      socket.end(frame(0x8, close));
    },
  };
}

/**
 * ServeExec's SPDY side (createHTTPStreamStreams): httpstream.Handshake (the first of the client's
 * X-Stream-Protocol-Version values the kubelet serves, else 403 naming them), the 101, then the
 * streams the options call for (waitForStreams); 'refused' when no protocol is shared.
 */
async function spdyStreams(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: StreamOptions,
): Promise<ExecStreams | 'refused'> {
  const offered = String(req.headers['x-stream-protocol-version'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const protocol = offered.find((p) => SPDY_PROTOCOLS.includes(p));
  if (protocol === undefined) {
    refuse(
      socket,
      403,
      'Forbidden',
      `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${SPDY_PROTOCOLS.join(' ')}]`,
    );
    return 'refused';
  }
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
      `X-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  const spdy = new SpdyExecStreams(socket, head);
  const names: Record<number, string> = {
    [STDOUT]: 'stdout',
    [STDERR]: 'stderr',
    [ERROR]: 'error',
  };
  const withResize =
    options.tty && protocol !== 'channel.k8s.io' && protocol !== 'v2.channel.k8s.io';
  await spdy.waitFor(
    [
      'error',
      ...(options.stdin ? ['stdin'] : []),
      ...(options.stdout ? ['stdout'] : []),
      ...(options.stderr ? ['stderr'] : []),
      ...(withResize ? ['resize'] : []),
    ],
    30_000,
  );
  return {
    v4: protocol === V4,
    write: (channel, data) => spdy.write(names[channel] ?? '', data),
    close: () => spdy.close(),
  };
}

/** The Status the kubelet's ServeExec writes for a finished command (exit code, or an error that kept it from running). */
function execStatus(exitCode: number | undefined, error: Error | undefined): object {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  if (exitCode !== undefined)
    return {
      metadata: {},
      status: 'Failure',
      message: `command terminated with non-zero exit code: exit status ${exitCode}`,
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
    };
  const message = `error executing command in container: ${error?.message ?? 'unknown error'}`;
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

/** One WebSocket frame, server to client (unmasked, FIN set). */
function frame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  let head: Buffer;
  if (n < 126) head = Buffer.from([0x80 | opcode, n]);
  else if (n < 65_536) {
    head = Buffer.alloc(4);
    head[0] = 0x80 | opcode;
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** A binary message on `channel` (wsstream's rawCodec: the channel byte, then the data). */
function channelMessage(channel: number, data: Buffer): Buffer {
  return frame(0x2, Buffer.concat([Buffer.from([channel]), data]));
}

/** An HTTP answer on a socket that asked for an upgrade, then closed. */
function refuse(socket: Duplex, code: number, text: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${code} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export class KubeletExecActor {
  readonly execs: ActorExec[] = [];
  readonly #server: Server;
  readonly #admin: KubeConfig;
  readonly nodeName: string;
  readonly #binDir: string;

  private constructor(server: Server, admin: KubeConfig, nodeName: string, binDir: string) {
    this.#server = server;
    this.#admin = admin;
    this.nodeName = nodeName;
    this.#binDir = binDir;
  }

  /**
   * Serves on a loopback port and registers the Node `nodeName` pointing at it (through `admin`,
   * as the kubelet registers its own Node). Pods created with spec.nodeName `nodeName` are then
   * exec'd into here.
   */
  static async start(
    admin: KubeConfig,
    options: { nodeName: string; binDir: string },
  ): Promise<KubeletExecActor> {
    const ca = await createCertificateAuthority('kubelet-exec-actor-ca');
    const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1', options.nodeName] });
    const server = createServer({ cert: serving.certificatePem, key: serving.keyPem });
    const actor = new KubeletExecActor(server, admin, options.nodeName, options.binDir);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      // getExec without an upgrade: remotecommand's handshake refuses it.
      res.writeHead(req.url?.startsWith('/exec/') ? 400 : 404, { 'Content-Type': 'text/plain' });
      res.end('unable to upgrade: missing upgrade headers in request');
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => undefined);
      actor.#serveExec(req, socket, head).catch((error: unknown) => {
        if (!socket.destroyed) refuse(socket, 500, 'Internal Server Error', String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await requestJson(admin, {
      method: 'POST',
      path: resourcePath(NODES),
      body: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: options.nodeName },
        status: {
          addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
          daemonEndpoints: { kubeletEndpoint: { Port: port } },
        },
      },
    });
    return actor;
  }

  /** Deletes the Node and stops serving. */
  async stop(): Promise<void> {
    await requestJson(this.#admin, {
      method: 'DELETE',
      path: resourcePath({ ...NODES, name: this.nodeName }),
    }).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** getExec, then ServeExec over WebSocket or SPDY/3.1 (see the file's comment). */
  async #serveExec(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    // /exec/{podNamespace}/{podID}/{containerName} (server.go's route; the form with the pod's UID is not used by the API server).
    if (parts.length !== 4 || parts[0] !== 'exec')
      return refuse(socket, 404, 'Not Found', '404 page not found');
    const [, namespace = '', podName = '', container = ''] = parts;
    // The stream flags as streamParams writes them (core/v1 ExecStdinParam "input", ExecStdoutParam
    // "output", ExecStderrParam "error", ExecTTYParam "tty") and remotecommand NewOptions reads them.
    const flag = (name: string) => url.searchParams.get(name) === '1';
    const options: StreamOptions = {
      stdin: flag('input'),
      stdout: flag('output'),
      stderr: flag('error') && !flag('tty'),
      tty: flag('tty'),
    };
    if (!options.stdin && !options.stdout && !options.stderr)
      return refuse(
        socket,
        400,
        'Bad Request',
        'you must specify at least 1 of stdin, stdout, stderr',
      );
    if (!(await this.#runs(namespace, podName)))
      return refuse(socket, 404, 'Not Found', 'pod does not exist');
    const upgrade = (req.headers.upgrade ?? '').toLowerCase();
    const streams =
      upgrade === 'spdy/3.1'
        ? await spdyStreams(req, socket, head, options)
        : upgrade === 'websocket'
          ? webSocketStreams(req, socket, options)
          : undefined;
    if (streams === undefined)
      return refuse(
        socket,
        400,
        'Bad Request',
        'unable to upgrade: missing upgrade headers in request',
      );
    if (streams === 'refused') return;
    const command = url.searchParams.getAll('command');
    this.execs.push({ namespace, pod: podName, container, command, upgrade });
    const { exitCode, error, stdout, stderr } = await this.#run(command);
    if (options.stdout && stdout.length > 0) streams.write(STDOUT, stdout);
    if (options.stderr && stderr.length > 0) streams.write(STDERR, stderr);
    const status = execStatus(exitCode, error);
    // v4WriteStatusFunc: the Status as JSON; v1WriteStatusFunc (older protocols): a failure's message.
    if (streams.v4) streams.write(ERROR, Buffer.from(JSON.stringify(status)));
    else if (exitCode !== 0)
      streams.write(ERROR, Buffer.from((status as { message: string }).message));
    streams.close();
  }

  /** Whether the pod is bound to this node (the kubelet's GetPodByName knows only its own pods). */
  async #runs(namespace: string, name: string): Promise<boolean> {
    try {
      const pod = await requestJson<Pod>(this.#admin, {
        method: 'GET',
        path: resourcePath({ ...PODS, namespace, name }),
      });
      return pod.spec?.nodeName === this.nodeName;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** The command with execFile (argv, no shell), `binDir` first on PATH. */
  #run(command: string[]): Promise<{
    exitCode: number | undefined;
    error: Error | undefined;
    stdout: Buffer;
    stderr: Buffer;
  }> {
    const [file, ...args] = command;
    return new Promise((resolve) => {
      if (file === undefined) {
        resolve({
          exitCode: undefined,
          error: new Error('no command'),
          stdout: Buffer.alloc(0),
          stderr: Buffer.alloc(0),
        });
        return;
      }
      execFile(
        file,
        args,
        {
          encoding: 'buffer',
          env: { ...process.env, PATH: `${this.#binDir}:${process.env['PATH'] ?? ''}` },
          maxBuffer: 16 * 1024 * 1024,
        },
        (error, stdout, stderr) => {
          const code = (error as NodeJS.ErrnoException | null)?.code;
          resolve({
            exitCode: error === null ? 0 : typeof code === 'number' ? code : undefined,
            error: error ?? undefined,
            stdout,
            stderr,
          });
        },
      );
    });
  }
}
