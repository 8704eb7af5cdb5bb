/**
 * A test actor standing for a node's kubelet as far as pods/exec goes: an HTTPS server registered
 * as a Node (status.addresses InternalIP 127.0.0.1, status.daemonEndpoints.kubeletEndpoint.Port its
 * port), so that the real kube-apiserver proxies pods/exec of the pods bound to that node to it.
 *
 * What it imitates (Kubernetes v1.33):
 * - the kube-apiserver's side: pkg/registry/core/pod/strategy.go streamLocation builds
 *   https://<node address>:<kubelet port>/exec/<namespace>/<pod>/<container>?command=...&output=1
 *   &error=1 (streamParams; input=1 and tty=1 when asked); pkg/kubelet/client/kubelet_client.go sends no client certificate without
 *   --kubelet-client-certificate and, without --kubelet-certificate-authority, does not verify the
 *   kubelet's serving certificate (transportConfig: no CA, TLS.Insecure), so a self-signed one
 *   does here;
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
 *   connection closes.
 *
 * SPDY is not spoken: a kube-apiserver with TranslateStreamCloseWebsocketRequests (beta, on by
 * default since 1.30) turns a v5.channel.k8s.io WebSocket exec into SPDY/3.1 toward the kubelet
 * (pkg/registry/core/pod/rest/subresources.go ExecREST.Connect, apiserver's
 * util/proxy StreamTranslatorHandler: a POST with Upgrade: SPDY/3.1 and X-Stream-Protocol-Version
 * v5.channel.k8s.io down to channel.k8s.io), so tests using this actor start the API server with
 * that gate off; it then proxies the client's WebSocket upgrade as it is (UpgradeAwareHandler).
 * An SPDY request is answered 400 naming the gate (the API server passes the text on).
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

const NODES = { group: '', version: 'v1', plural: 'nodes' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
/** RFC 6455's GUID for Sec-WebSocket-Accept. */
const WEBSOCKET_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** The protocols the kubelet's WebSocket exec serves in binary (createWebSocketStreams). */
const V4 = 'v4.channel.k8s.io';
const BINARY_PROTOCOLS = [V4, 'channel.k8s.io', ''];
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;

/** One exec the actor ran. */
export interface ActorExec {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
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
    server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
      socket.on('error', () => undefined);
      actor.#serveExec(req, socket).catch((error: unknown) => {
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

  /** getExec, then ServeExec over WebSocket (see the file's comment). */
  async #serveExec(req: IncomingMessage, socket: Duplex): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    // /exec/{podNamespace}/{podID}/{containerName} (server.go's route; the form with the pod's UID is not used by the API server).
    if (parts.length !== 4 || parts[0] !== 'exec')
      return refuse(socket, 404, 'Not Found', '404 page not found');
    const [, namespace = '', podName = '', container = ''] = parts;
    // The stream flags as streamParams writes them (core/v1 ExecStdinParam "input", ExecStdoutParam
    // "output", ExecStderrParam "error") and remotecommand NewOptions reads them.
    const flag = (name: string) => url.searchParams.get(name) === '1';
    if (!flag('input') && !flag('output') && !flag('error'))
      return refuse(
        socket,
        400,
        'Bad Request',
        'you must specify at least 1 of stdin, stdout, stderr',
      );
    if (!(await this.#runs(namespace, podName)))
      return refuse(socket, 404, 'Not Found', 'pod does not exist');
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket')
      return refuse(
        socket,
        400,
        'Bad Request',
        `this actor serves exec over WebSocket only, not ${req.headers.upgrade ?? 'a plain request'} ` +
          '(start the API server with --feature-gates=TranslateStreamCloseWebsocketRequests=false)',
      );
    const offered = (req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const protocol = (offered.length === 0 ? [''] : offered).find((p) =>
      BINARY_PROTOCOLS.includes(p),
    );
    if (protocol === undefined)
      return refuse(
        socket,
        400,
        'Bad Request',
        `requested protocol(s) are not supported: ${offered.join(', ')}`,
      );
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
    const wantStdout = flag('output');
    const wantStderr = flag('error');
    socket.write(
      channelMessage(wantStdout ? STDOUT : wantStderr ? STDERR : ERROR, Buffer.alloc(0)),
    );
    const command = url.searchParams.getAll('command');
    this.execs.push({ namespace, pod: podName, container, command });
    const { exitCode, error, stdout, stderr } = await this.#run(command);
    if (wantStdout && stdout.length > 0) socket.write(channelMessage(STDOUT, stdout));
    if (wantStderr && stderr.length > 0) socket.write(channelMessage(STDERR, stderr));
    const status = execStatus(exitCode, error);
    if (protocol === V4) socket.write(channelMessage(ERROR, Buffer.from(JSON.stringify(status))));
    else if (exitCode !== 0)
      socket.write(channelMessage(ERROR, Buffer.from((status as { message: string }).message)));
    const close = Buffer.alloc(2);
    close.writeUInt16BE(1000, 0);
    socket.end(frame(0x8, close));
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
