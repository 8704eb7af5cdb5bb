/**
 * The kubelet's side of an exec over SPDY/3.1 (k8s.io/kubelet pkg/cri/streaming/remotecommand
 * httpstream.go createHTTPStreamStreams, over k8s.io/apimachinery's spdy ResponseUpgrader and
 * moby/spdystream), as a kube-apiserver with TranslateStreamCloseWebsocketRequests reaches it: after
 * the 101 (Upgrade: SPDY/3.1, X-Stream-Protocol-Version the first of the client's versions the
 * kubelet serves: v4.channel.k8s.io down to channel.k8s.io, httpstream.Handshake), the client opens
 * one SPDY stream per channel, each named by its `streamtype` header (error, stdin, stdout, stderr,
 * resize); each is answered with a SYN_REPLY at once; the command's output goes as DATA frames on
 * its stream, the Status (v4) on the error stream, each stream then ends with FIN, and the
 * connection goes away (GOAWAY).
 *
 * Frames (SPDY/3.1 draft, section 2.2): control frames carry the version (3) and a type
 * (SYN_STREAM 1, SYN_REPLY 2, RST_STREAM 3, SETTINGS 4, PING 6, GOAWAY 7, WINDOW_UPDATE 9); data
 * frames the stream id. Header blocks are one zlib stream per direction with SPDY's dictionary.
 * Flow control is left out: the outputs written here stay under the 64 KiB initial window.
 */
import { constants, createDeflate, inflateSync } from 'node:zlib';
import type { Duplex } from 'node:stream';
import { SPDY_HEADER_DICTIONARY } from './spdy-header-dictionary.js';

const VERSION = 3;
const SYN_STREAM = 1;
const SYN_REPLY = 2;
const PING = 6;
const GOAWAY = 7;
const FLAG_FIN = 0x01;

/** One SPDY/3.1 server connection: the streams the client opened, by their `streamtype`. */
export class SpdyExecStreams {
  readonly #socket: Duplex;
  /** The client's header blocks so far: one zlib stream, inflated again from its start for each block. */
  #headerBytes = Buffer.alloc(0);
  #headerTextLength = 0;
  #pending = Buffer.alloc(0);
  readonly #byType = new Map<string, number>();
  readonly #deflate = createDeflate({ dictionary: SPDY_HEADER_DICTIONARY });
  #waiters: Array<() => void> = [];
  /** Control frames are handled one after the other: the reply's header block depends on the ones before. */
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  /** `head`: what the socket had already read after the upgrade request. */
  constructor(socket: Duplex, head: Buffer) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    if (head.length > 0) this.#receive(head);
  }

  /** Resolves once streams of all `types` are open (the kubelet's waitForStreams). */
  async waitFor(types: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!types.every((t) => this.#byType.has(t))) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for SPDY streams ${types.join(', ')}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** DATA on the stream of `type` (nothing when it is not open). */
  write(type: string, data: Buffer, fin = false): void {
    const id = this.#byType.get(type);
    if (id === undefined) return;
    const head = Buffer.alloc(8);
    head.writeUInt32BE(id & 0x7fffffff, 0);
    head.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24) | data.length, 4);
    this.#socket.write(Buffer.concat([head, data]));
  }

  /**
   * FIN on every open stream, GOAWAY, then the connection closed (spdystream Connection.Close),
   * once the control frames already read are answered; later ones are not.
   */
  close(): void {
    this.#queue = this.#queue.then(() => {
      if (this.#closed) return;
      this.#closed = true;
      for (const type of this.#byType.keys()) this.write(type, Buffer.alloc(0), true);
      const body = Buffer.alloc(8);
      body.writeUInt32BE(0, 0);
      body.writeUInt32BE(0, 4);
      this.#socket.end(controlFrame(GOAWAY, 0, body));
    });
  }

  #receive(chunk: Buffer): void {
    this.#pending = Buffer.concat([this.#pending, chunk]);
    while (this.#pending.length >= 8) {
      const length = this.#pending.readUInt32BE(4) & 0xffffff;
      if (this.#pending.length < 8 + length) return;
      const frame = this.#pending.subarray(0, 8 + length);
      this.#pending = this.#pending.subarray(8 + length);
      const control = (frame[0]! & 0x80) !== 0;
      if (control) {
        const [type, body] = [frame.readUInt16BE(2), frame.subarray(8)];
        this.#queue = this.#queue
          .then(() => this.#control(type, body))
          .catch((error: unknown) => {
            this.#socket.destroy(error as Error);
          });
      }
    }
  }

  async #control(type: number, body: Buffer): Promise<void> {
    if (this.#closed) return;
    if (type === PING) this.#socket.write(controlFrame(PING, 0, body));
    if (type !== SYN_STREAM) return;
    const id = body.readUInt32BE(0) & 0x7fffffff;
    const headers = this.#readHeaders(body.subarray(10));
    const streamType = headers.get('streamtype');
    const reply = Buffer.alloc(4);
    reply.writeUInt32BE(id, 0);
    const block = await this.#compress(headerBlock(new Map()));
    this.#socket.write(controlFrame(SYN_REPLY, 0, Buffer.concat([reply, block])));
    if (streamType !== undefined) this.#byType.set(streamType, id);
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** One header block of the client's zlib stream: its name/value pairs (names lower-case). */
  #readHeaders(block: Buffer): Map<string, string> {
    this.#headerBytes = Buffer.concat([this.#headerBytes, block]);
    const text = inflateSync(this.#headerBytes, {
      dictionary: SPDY_HEADER_DICTIONARY,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    const mine = text.subarray(this.#headerTextLength);
    this.#headerTextLength = text.length;
    const headers = new Map<string, string>();
    let at = 4;
    for (let i = 0, n = mine.readUInt32BE(0); i < n; i++) {
      const nameLength = mine.readUInt32BE(at);
      const name = mine.toString('utf8', at + 4, at + 4 + nameLength);
      at += 4 + nameLength;
      const valueLength = mine.readUInt32BE(at);
      headers.set(name, mine.toString('utf8', at + 4, at + 4 + valueLength));
      at += 4 + valueLength;
    }
    return headers;
  }

  /** `plain` through this side's zlib stream, flushed to a whole block (Z_SYNC_FLUSH). */
  #compress(plain: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const out: Buffer[] = [];
      const onData = (chunk: Buffer) => out.push(chunk);
      this.#deflate.on('data', onData);
      this.#deflate.write(plain, (error) => {
        if (error) return reject(error);
        this.#deflate.flush(constants.Z_SYNC_FLUSH, () => {
          this.#deflate.off('data', onData);
          resolve(Buffer.concat(out));
        });
      });
    });
  }
}

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE((flags << 24) | body.length, 4);
  return Buffer.concat([head, body]);
}

function headerBlock(headers: Map<string, string>): Buffer {
  const parts: Buffer[] = [];
  const count = Buffer.alloc(4);
  count.writeUInt32BE(headers.size, 0);
  parts.push(count);
  for (const [name, value] of headers)
    for (const text of [name, value]) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(Buffer.byteLength(text), 0);
      parts.push(length, Buffer.from(text));
    }
  return Buffer.concat(parts);
}
