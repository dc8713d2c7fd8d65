import { describe, expect, it } from '@jest/globals';
import { csrfMatches, endSession, resumeSession, startSession, tokenHash } from './sessions.js';
import { lineChart } from './svg-chart.js';
import type { StoredLogin, StoredSession, StudioSessionStore } from './ports.js';

/** The port in memory: the use cases' rules without a database (the PostgreSQL one is tested through the API). */
class MemoryStore implements StudioSessionStore {
  readonly sessions = new Map<string, StoredSession>();
  async insertSession(hash: Buffer, session: StoredSession) {
    this.sessions.set(hash.toString('hex'), session);
  }
  async findSession(hash: Buffer, now: Date) {
    const s = this.sessions.get(hash.toString('hex'));
    return s && s.expiresAt > now ? s : undefined;
  }
  async deleteSession(hash: Buffer) {
    this.sessions.delete(hash.toString('hex'));
  }
  async insertLogin(_hash: Buffer, _login: StoredLogin) {
    return true;
  }
  async takeLogin() {
    return undefined;
  }
}

const alice = { issuer: 'https://idp.example', subject: 'alice' };

describe('sessions', () => {
  it('stores the token only as its SHA-256 and finds it again until it expires', async () => {
    const store = new MemoryStore();
    const now = new Date('2026-11-25T12:00:00Z');
    const { token, expiresAt } = await startSession(store, alice, { ttlMs: 3600_000, now });
    expect([...store.sessions.keys()]).toEqual([tokenHash(token).toString('hex')]);
    expect(expiresAt.toISOString()).toBe('2026-11-25T13:00:00.000Z');
    expect(await resumeSession(store, token, new Date('2026-11-25T12:59:59Z'))).toMatchObject(alice);
    expect(await resumeSession(store, token, new Date('2026-11-25T13:00:01Z'))).toBeUndefined();
  });

  it('rotates on login: the previous token stops working', async () => {
    const store = new MemoryStore();
    const first = await startSession(store, alice, { ttlMs: 60_000 });
    const second = await startSession(store, alice, { ttlMs: 60_000, previousToken: first.token });
    expect(second.token).not.toBe(first.token);
    expect(await resumeSession(store, first.token)).toBeUndefined();
    await endSession(store, second.token);
    expect(await resumeSession(store, second.token)).toBeUndefined();
  });

  it('a malformed cookie is no session (and never reaches the store)', async () => {
    expect(await resumeSession(new MemoryStore(), 'kort')).toBeUndefined();
    expect(await resumeSession(new MemoryStore(), undefined)).toBeUndefined();
  });

  it('csrfMatches compares exactly, whatever shape the form field has', () => {
    expect(csrfMatches('abc', 'abc')).toBe(true);
    expect(csrfMatches('abc', 'abd')).toBe(false);
    expect(csrfMatches('abc', 'ab')).toBe(false);
    expect(csrfMatches('abc', ['abc'])).toBe(false);
    expect(csrfMatches('abc', undefined)).toBe(false);
  });
});

describe('lineChart', () => {
  it('escapes labels and titles, and says so when there is nothing to draw', () => {
    const svg = lineChart({ id: 'x', title: 'A <b>', description: 'd', series: [{ label: '<script>', points: [{ x: new Date(0), y: 0.1 }, { x: new Date(3600_000), y: 0.2 }] }], formatY: String }).toString();
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('<title id="chart-x-t">A &lt;b&gt;</title>');
    expect(lineChart({ id: 'y', title: 'Tom', description: '', series: [], formatY: String }).toString()).toContain('ingen målinger ennå');
  });
});
