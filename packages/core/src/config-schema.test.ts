import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { commaList, flag, integer, parseEnv, port, size } from './config-schema.js';

const schema = z.object({ PORT: port(8080), WORKERS: integer(3, 1), LIMIT: integer(10, 1, 100), BODY: size('25mb', '100mb'), ON: flag(), ALLOW: commaList() });

describe('config pieces', () => {
  it('give their defaults when a variable is unset or empty (a port only when unset)', () => {
    expect(parseEnv(schema, {})).toEqual({ PORT: 8080, WORKERS: 3, LIMIT: 10, BODY: 25 * 1024 ** 2, ON: false, ALLOW: [] });
    expect(parseEnv(schema, { WORKERS: '', LIMIT: '', BODY: '', ON: '', ALLOW: '' })).toMatchObject({ WORKERS: 3, LIMIT: 10, BODY: 25 * 1024 ** 2, ON: false });
    expect(() => parseEnv(schema, { PORT: '' })).toThrow('PORT must be a port number from 0 to 65535; got ""');
  });

  it('read what they are given', () => {
    expect(parseEnv(schema, { PORT: '0', WORKERS: '12', LIMIT: '100', BODY: '1.5MB', ON: '1', ALLOW: ' a.example, ,b.example:8080 ' })).toEqual({
      PORT: 0,
      WORKERS: 12,
      LIMIT: 100,
      BODY: 1.5 * 1024 ** 2,
      ON: true,
      ALLOW: ['a.example', 'b.example:8080'],
    });
  });

  it('refuse a bad value in one line that starts with the variable', () => {
    expect(() => parseEnv(schema, { PORT: '8.08e3' })).toThrow(/^PORT must be a port number from 0 to 65535; got "8.08e3"$/);
    expect(() => parseEnv(schema, { WORKERS: '0' })).toThrow(/^WORKERS must be an integer of at least 1; got "0"$/);
    expect(() => parseEnv(schema, { LIMIT: '101' })).toThrow(/^LIMIT must be an integer from 1 to 100; got "101"$/);
    expect(() => parseEnv(schema, { BODY: 'lots' })).toThrow(/^BODY must be a size like 25mb, 512kb or 1048576; got "lots"$/);
    expect(() => parseEnv(schema, { BODY: '2gb' })).toThrow(/^BODY must be from 1 byte to 100mb; got "2gb"$/);
    expect(() => parseEnv(schema, { ON: 'yes' })).toThrow(/^ON must be 1 \(on\) or 0 \(off\); got "yes"$/);
  });
});
