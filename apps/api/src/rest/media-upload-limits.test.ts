import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_UPLOAD_LIMITS } from '@inntak/media';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

// An upload past its kind's limit, sent as an attacker (or a careless client) would: over a raw
// socket, so what the server answers, and when, is seen as it is (docs/security.md, "Fifth attack
// (issue 35)", finding 10). The limits are small so "too big" needs no big file.

const LIMITS = { ...DEFAULT_UPLOAD_LIMITS, audio: 200_000, image: 100_000, video: 2_000_000 };
/** Where a hang is the failure: generous, so a loaded machine never trips it. */
const HANG_MS = 15_000;

let ctx: TestContext;
let server: Server;
let port: number;
let authorization: string;
let wav: Buffer;

beforeAll(async () => {
  ctx = await setupTestContext();
  const app = ctx.app({ files: new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-upload-limits-'))), uploads: LIMITS });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
  authorization = await ctx.ownerAuthorization();
  wav = await readFile(join(import.meta.dirname, '..', '__tests__', 'media-fixtures', 'tone.wav'));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

interface Exchange {
  socket: Socket;
  /** Everything the server sent, once it ended the connection (or HANG_MS passed). */
  ended: Promise<{ text: string; ended: boolean }>;
  /** Resolves once the head of an answer has arrived. */
  answered: Promise<void>;
  /** Bytes of body written so far. */
  sent: () => number;
}

/** A POST /media over a raw socket: the head, then whatever the test writes. */
function startUpload(headers: Record<string, string>, path = `/media?collection_id=${ctx.collectionId}`): Exchange {
  const socket = connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  const text = () => Buffer.concat(received).toString('utf8');
  let sent = 0;
  let onAnswer: () => void = () => {};
  const answered = new Promise<void>((resolve) => (onAnswer = resolve));
  const ended = new Promise<{ text: string; ended: boolean }>((resolve) => {
    const timer = setTimeout(() => resolve({ text: text(), ended: false }), HANG_MS);
    socket.on('data', (chunk) => {
      received.push(chunk);
      if (text().includes('\r\n\r\n')) onAnswer();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: text(), ended: true });
    });
  });
  const head = Object.entries({ Host: `127.0.0.1:${port}`, Authorization: authorization, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`POST ${path} HTTP/1.1\r\n${head.join('')}\r\n`);
  const write = socket.write.bind(socket);
  socket.write = ((chunk: Buffer) => {
    sent += chunk.byteLength;
    return write(chunk);
  }) as typeof socket.write;
  return { socket, ended, answered, sent: () => sent };
}

/** Writes `chunk` (chunked encoding when asked) until the server answers or `most` bytes went out. */
async function writeUntilAnswered(x: Exchange, chunk: Buffer, most: number, chunked: boolean): Promise<void> {
  let answered = false;
  void x.answered.then(() => (answered = true));
  while (!answered && !x.socket.destroyed && x.sent() < most) {
    const ok = chunked ? x.socket.write(Buffer.concat([Buffer.from(`${chunk.byteLength.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])) : x.socket.write(chunk);
    if (!ok) await new Promise((resolve) => x.socket.once('drain', resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function statusOf(text: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
}

describe('an upload past its kind’s limit (finding 10)', () => {
  it('a Content-Length past the limit of the kind its first bytes show is answered 413 with Connection: close before the rest is read', async () => {
    // Audio's limit is 200 KB; 300 KB announced is under video's, so only the kind can refuse it.
    const x = startUpload({ 'Content-Type': 'audio/wav', 'Content-Length': String(LIMITS.audio + 100_000) });
    x.socket.write(wav.subarray(0, 8192));
    const { text, ended } = await x.ended;
    expect(statusOf(text)).toBe(413);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain(`{"error":"Filen er for stor: audio/wav kan være høyst ${LIMITS.audio} byte"}`);
    expect(ended).toBe(true);
    expect(x.sent()).toBeLessThan(10_000);
  });

  it('a Content-Length past the limit, the body sent on without waiting, is still answered 413 with Connection: close, then the connection ends', async () => {
    const declared = LIMITS.audio + 100_000;
    const x = startUpload({ 'Content-Type': 'audio/wav', 'Content-Length': String(declared) });
    x.socket.write(wav);
    await writeUntilAnswered(x, Buffer.alloc(16_384, 1), declared - wav.byteLength - 16_384, false);
    const { text, ended } = await x.ended;
    expect(statusOf(text)).toBe(413);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(ended).toBe(true);
  });

  it('a Content-Length past every kind’s limit is answered 413 before a byte of the body', async () => {
    const x = startUpload({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(LIMITS.video * 2) });
    const { text, ended } = await x.ended;
    expect(statusOf(text)).toBe(413);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(ended).toBe(true);
  });

  it.each([
    ['as the raw body', 'audio/wav', (w: Buffer) => w],
    ['as multipart/form-data', 'multipart/form-data; boundary=grense', (w: Buffer) => Buffer.concat([Buffer.from('--grense\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n'), w])],
  ])('a body without Content-Length that grows past the limit %s is answered 413 with Connection: close, then the connection ends', async (_how, contentType, wrap) => {
    const x = startUpload({ 'Content-Type': contentType, 'Transfer-Encoding': 'chunked' });
    const first = wrap(wav);
    x.socket.write(Buffer.concat([Buffer.from(`${first.byteLength.toString(16)}\r\n`), first, Buffer.from('\r\n')]));
    // Sent on until the answer: at most four times the limit (a server that never answers).
    await writeUntilAnswered(x, Buffer.alloc(16_384, 1), LIMITS.audio * 4, true);
    const { text, ended } = await x.ended;
    expect(statusOf(text)).toBe(413);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('Filen er for stor');
    expect(ended).toBe(true);
  });
});
