import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { constants, createDeflate, inflateSync, type Deflate } from 'node:zlib';
import { SpdyExecStreams } from '../../../support/vmwatcher/spdy-exec-streams.js';
import { SPDY_HEADER_DICTIONARY } from '../../../support/vmwatcher/spdy-header-dictionary.js';

/** A control frame as moby/spdystream's Framer writes one (spdy/write.go): version 3, type, flags, length. */
function control(type: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | 3, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** A header block (spdy/write.go writeHeaderValueBlock), through the client's one zlib stream. */
function headerBlock(deflate: Deflate, headers: Record<string, string>): Promise<Buffer> {
  const parts: Buffer[] = [Buffer.alloc(4)];
  parts[0]!.writeUInt32BE(Object.keys(headers).length, 0);
  for (const [name, value] of Object.entries(headers))
    for (const text of [name, value]) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(Buffer.byteLength(text), 0);
      parts.push(length, Buffer.from(text));
    }
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const onData = (chunk: Buffer) => out.push(chunk);
    deflate.on('data', onData);
    deflate.write(Buffer.concat(parts), () =>
      deflate.flush(constants.Z_SYNC_FLUSH, () => {
        deflate.off('data', onData);
        resolve(Buffer.concat(out));
      }),
    );
  });
}

/** SYN_STREAM for stream `id` with `streamtype` (client-go's remotecommand streamProtocolV4 createStreams). */
async function synStream(deflate: Deflate, id: number, streamType: string): Promise<Buffer> {
  const ids = Buffer.alloc(10);
  ids.writeUInt32BE(id, 0);
  return control(1, Buffer.concat([ids, await headerBlock(deflate, { streamtype: streamType })]));
}

interface Frame {
  control: boolean;
  type: number;
  streamId: number;
  flags: number;
  body: Buffer;
}

function frames(bytes: Buffer): Frame[] {
  const out: Frame[] = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    const length = bytes.readUInt32BE(at + 4) & 0xffffff;
    const isControl = (bytes[at]! & 0x80) !== 0;
    const body = bytes.subarray(at + 8, at + 8 + length);
    out.push({
      control: isControl,
      type: isControl ? bytes.readUInt16BE(at + 2) : 0,
      streamId: isControl
        ? body.length >= 4
          ? body.readUInt32BE(0) & 0x7fffffff
          : 0
        : bytes.readUInt32BE(at) & 0x7fffffff,
      flags: bytes[at + 4]!,
      body,
    });
    at += 8 + length;
  }
  return out;
}

describe('SpdyExecStreams (the kubelet exec actor over SPDY/3.1)', () => {
  let server: Server;
  let accepted: Promise<Socket>;

  before(async () => {
    server = createServer();
    accepted = new Promise((resolve) => server.once('connection', resolve));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('replies to each stream, writes DATA on the named ones, then FIN each and GOAWAY', async () => {
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const received: Buffer[] = [];
    client.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => client.on('end', resolve));
    const streams = new SpdyExecStreams(await accepted, Buffer.alloc(0));
    const deflate = createDeflate({ dictionary: SPDY_HEADER_DICTIONARY });
    client.write(control(6, Buffer.from([0, 0, 0, 7])));
    client.write(await synStream(deflate, 1, 'error'));
    client.write(await synStream(deflate, 3, 'stdout'));
    await streams.waitFor(['error', 'stdout'], 5_000);
    streams.write('stdout', Buffer.from('Capacity: 1\n'));
    streams.write('error', Buffer.from('{"status":"Success"}'));
    streams.close();
    await ended;
    client.destroy();

    const got = frames(Buffer.concat(received));
    const replies = got.filter((f) => f.control && f.type === 2);
    assert.deepStrictEqual(
      replies.map((f) => f.streamId),
      [1, 3],
    );
    // The replies' header blocks are one zlib stream with the dictionary: each holds no header.
    const replyText = inflateSync(Buffer.concat(replies.map((f) => f.body.subarray(4))), {
      dictionary: SPDY_HEADER_DICTIONARY,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    assert.deepStrictEqual([...replyText], [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepStrictEqual(
      got.filter((f) => f.control && f.type === 6).map((f) => [...f.body]),
      [[0, 0, 0, 7]],
      'the PING is echoed',
    );
    const data = got.filter((f) => !f.control);
    assert.deepStrictEqual(
      data.map((f) => [f.streamId, f.flags, f.body.toString()]),
      [
        [3, 0, 'Capacity: 1\n'],
        [1, 0, '{"status":"Success"}'],
        [1, 1, ''],
        [3, 1, ''],
      ],
    );
    assert.strictEqual(got.at(-1)?.type, 7, 'GOAWAY last');
  });

  it('uses the SPDY/3 header dictionary of 1,423 bytes (its Adler-32 0xe3c6a7c2 names it in zlib headers)', () => {
    assert.strictEqual(SPDY_HEADER_DICTIONARY.length, 1423);
    let a = 1;
    let b = 0;
    for (const byte of SPDY_HEADER_DICTIONARY) {
      a = (a + byte) % 65521;
      b = (b + a) % 65521;
    }
    assert.strictEqual(((b << 16) | a) >>> 0, 0xe3c6a7c2);
  });
});
