import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { freePort, startTestIssuer, type TestIssuer } from '@inntak/test-support';
import { createCollection, createPerson } from '@inntak/access';

// The API as production runs it (the built main.js), stopped with a SIGTERM while uploads it is
// reading have stalled (docs/security.md, "Fifth attack (issue 35)", finding 10).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** Where a hang is the failure: the 10 s grace and then some, so a loaded machine never trips it. */
const HANG_MS = 40_000;
/** How long the probes wait for the stalled uploads to be read (only a hang reaches it). */
const READING_MS = 60_000;

let db: OpenTestDatabase;
let issuer: TestIssuer;
const storageDir = mkdtempSync(join(tmpdir(), 'inntak-shutdown-'));
let child: ChildProcess | undefined;

beforeAll(async () => {
  db = await openTestDatabase();
  issuer = await startTestIssuer();
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await issuer.close();
  await db.dispose();
  rmSync(storageDir, { recursive: true, force: true });
});

describe('SIGTERM with uploads half sent', () => {
  it('ends the connections it cannot finish within its grace and exits 0', async () => {
    const person = await createPerson(storesOn(db.db).graph, { subject: 'opplaster' });
    const collection = await createCollection(storesOn(db.db).graph, { title: 'Opplastinger', ownerId: person.id });
    const port = await freePort();
    child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: issuer.audience, STORAGE_DIR: storageDir, INNTAK_DEV_ISSUER: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child!.stdout! }).on('line', (line) => {
        if (line.includes('"api listening"')) resolve();
      });
      void exited.then(() => reject(new Error('the API exited before listening')));
    });
    const authorization = `Bearer ${await issuer.token('opplaster')}`;
    const wav = readFileSync(join(import.meta.dirname, '__tests__', 'media-fixtures', 'tone.wav'));
    // Two uploads announcing 1 MB that send 24 KB and stall, as a sender that went away leaves them.
    const stalled: Socket[] = [];
    const closed: Array<Promise<void>> = [];
    const refused = new Set<Socket>();
    const stall = () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      // A probe below may reach the cap before a stalled upload's bytes are read: that upload is
      // then the one refused (429), and is sent again.
      socket.on('data', (chunk: Buffer) => {
        if (chunk.toString('latin1').startsWith('HTTP/1.1 429')) refused.add(socket);
      });
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      socket.write(`POST /media?collection_id=${collection.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nContent-Type: audio/wav\r\nContent-Length: ${2 ** 20}\r\n\r\n`);
      socket.write(wav);
      stalled.push(socket);
    };
    stall();
    stall();
    // Both are being read once a third upload of the same person is refused (two at once at most).
    let third = 0;
    // Until then a probe is answered as an upload of its own (422: 64 bytes are no WAV); on a busy
    // machine the stalled ones may take seconds to be read, so only a hang ends the wait.
    for (const until = Date.now() + READING_MS; third !== 429 && Date.now() < until; ) {
      for (const socket of refused) {
        refused.delete(socket);
        stall();
      }
      third = (await fetch(`http://127.0.0.1:${port}/media?collection_id=${collection.id}`, { method: 'POST', headers: { Authorization: authorization }, body: wav.subarray(0, 64) })).status;
      if (third !== 429) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(third).toBe(429);

    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), HANG_MS).unref())]);
    expect(code).toBe(0);
    await Promise.all(closed);
    expect(stalled.every((s) => s.destroyed)).toBe(true);
    // The test's own limit is its waits added up (the API's start, the probes, the exit), so it
    // is never shorter than they are on a busy machine (it was 60 s, with 100 s of waits in it).
  }, 60_000 + READING_MS + HANG_MS);
});
