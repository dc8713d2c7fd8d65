import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../config.js';

const ISSUER = { OIDC_ISSUER: 'https://idp.example', OIDC_AUDIENCE: 'inntak' };

describe('the console settings', () => {
  it('default: no OpenID client, sessions of 8 hours', () => {
    expect(loadConfig({}).studio).toEqual({ clientId: undefined, clientSecret: undefined, sessionHours: 8 });
  });

  it('OIDC_CLIENT_ID with or without OIDC_CLIENT_SECRET (a public client), and STUDIO_SESSION_HOURS', () => {
    expect(loadConfig({ ...ISSUER, OIDC_CLIENT_ID: 'studio' }).studio).toEqual({ clientId: 'studio', clientSecret: undefined, sessionHours: 8 });
    expect(loadConfig({ ...ISSUER, OIDC_CLIENT_ID: 'studio', OIDC_CLIENT_SECRET: 's', STUDIO_SESSION_HOURS: '24' }).studio).toEqual({ clientId: 'studio', clientSecret: 's', sessionHours: 24 });
  });

  it('refuses a client without an issuer, a secret without a client, and a session length out of range, naming the variable', () => {
    expect(() => loadConfig({ OIDC_CLIENT_ID: 'studio' })).toThrow(/OIDC_CLIENT_ID/);
    expect(() => loadConfig({ ...ISSUER, OIDC_CLIENT_SECRET: 's' })).toThrow(/OIDC_CLIENT_SECRET/);
    expect(() => loadConfig({ STUDIO_SESSION_HOURS: '0' })).toThrow(/STUDIO_SESSION_HOURS/);
    expect(() => loadConfig({ STUDIO_SESSION_HOURS: 'lenge' })).toThrow(/STUDIO_SESSION_HOURS/);
  });
});
