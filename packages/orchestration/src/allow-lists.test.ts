import { describe, expect, it } from '@jest/globals';
import { hostAllowed } from './allow-lists.js';

const allowed = (url: string, allow: string[]) => hostAllowed(new URL(url), allow);

describe('ORCHESTRATION_HTTP_ALLOW (issue 35, finding 9)', () => {
  it('a bare host allows only the scheme’s default port (80 for http, 443 for https), not every local service', () => {
    expect(allowed('http://localhost/hook', ['localhost'])).toBe(true);
    expect(allowed('http://localhost:80/hook', ['localhost'])).toBe(true);
    expect(allowed('https://LOCALHOST/hook', ['localhost'])).toBe(true);
    expect(allowed('http://localhost:5432/', ['localhost'])).toBe(false);
    expect(allowed('http://localhost:8080/admin', ['localhost'])).toBe(false);
    expect(allowed('https://localhost:80/', ['localhost'])).toBe(false);
  });

  it('host:port allows that port only, also when it is the default written out', () => {
    expect(allowed('http://localhost:9099/chat', ['localhost:9099'])).toBe(true);
    expect(allowed('http://localhost:9098/chat', ['localhost:9099'])).toBe(false);
    expect(allowed('http://localhost/chat', ['localhost:9099'])).toBe(false);
    expect(allowed('https://chat.example/hook', ['chat.example:443'])).toBe(true);
    expect(allowed('http://[::1]:8080/x', ['[::1]:8080'])).toBe(true);
    expect(allowed('http://[::1]:8081/x', ['[::1]:8080'])).toBe(false);
  });

  it('another host is never allowed, whatever its port', () => {
    expect(allowed('http://localhost.evil.example/', ['localhost'])).toBe(false);
    expect(allowed('http://127.0.0.1/', ['localhost'])).toBe(false);
  });
});
