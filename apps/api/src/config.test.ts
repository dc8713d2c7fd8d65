import { describe, expect, it } from '@jest/globals';
import { loadConfig, parseSize } from './config.js';

describe('API configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      databaseUrl: undefined,
      port: 8080,
      bodyLimitBytes: 25 * 1024 * 1024,
      logLevel: 'info',
      baseUrl: 'http://localhost:8080',
      oidcIssuer: undefined,
      realtime: { maxQueue: 1000, initialSync: { collections: 50, nodesPerCollection: 20 } },
    });
  });

  it('reads sizes like 25mb, 512kb or a byte count', () => {
    expect(parseSize('512kb', 'X')).toBe(512 * 1024);
    expect(parseSize('1048576', 'X')).toBe(1048576);
    expect(parseSize('1.5MB', 'X')).toBe(1.5 * 1024 * 1024);
  });

  it('fails fast, naming the variable, on a bad value', () => {
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT/);
    expect(() => loadConfig({ BODY_LIMIT: 'lots' })).toThrow(/BODY_LIMIT/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ BASE_URL: 'not a url' })).toThrow(/BASE_URL/);
    expect(() => loadConfig({ REALTIME_MAX_QUEUE: '0' })).toThrow(/REALTIME_MAX_QUEUE/);
    expect(() => loadConfig({ MEDIA_URL_SECRET: 'short' })).toThrow(/MEDIA_URL_SECRET/);
    expect(() => loadConfig({ REALTIME_SYNC_NODES: 'many' })).toThrow(/REALTIME_SYNC_NODES/);
  });

  it('requires OIDC_AUDIENCE when OIDC_ISSUER is set', () => {
    expect(() => loadConfig({ OIDC_ISSUER: 'https://idp.example' })).toThrow(/OIDC_AUDIENCE/);
    expect(loadConfig({ OIDC_ISSUER: 'https://idp.example', OIDC_AUDIENCE: 'inntak' }).oidcAudience).toBe('inntak');
  });

  it('drops a trailing slash from BASE_URL so webhook URLs join cleanly', () => {
    expect(loadConfig({ BASE_URL: 'https://inntak.example/' }).baseUrl).toBe('https://inntak.example');
  });

  it('text-to-speech and media limits have the documented defaults (issue 22), and a STORAGE_DIR it cannot use is refused naming it', () => {
    expect(loadConfig({}).speech).toEqual({ maxTextChars: 20_000, maxAudioSeconds: 1200, jobsPerPerson: 2, collectionMediaBytes: 1024 ** 3 });
    expect(loadConfig({ MEDIA_BYTES_PER_COLLECTION: '512mb', TTS_JOBS_PER_PERSON: '5' }).speech).toMatchObject({ collectionMediaBytes: 512 * 1024 ** 2, jobsPerPerson: 5 });
    expect(() => loadConfig({ TTS_MAX_TEXT_CHARS: '300000' })).toThrow(/TTS_MAX_TEXT_CHARS/);
    expect(() => loadConfig({ STORAGE_DIR: '/proc/inntak-media' })).toThrow(/^STORAGE_DIR must be a directory this user can create and write; \/proc\/inntak-media: ENOENT$/);
  });
});
