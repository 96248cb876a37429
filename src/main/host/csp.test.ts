import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, securityHeaders } from './csp';

/** `{ directive: [values] }` from a policy string. */
function parse(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (!name) continue;
    expect(directives.has(name)).toBe(false);
    directives.set(name, values);
  }
  return directives;
}

describe('contentSecurityPolicy', () => {
  const sources = ['ws://127.0.0.1:4790', 'ws://localhost:4790'];
  const policy = contentSecurityPolicy(sources);
  const directives = parse(policy);

  it('allows no inline script, no eval and nothing remote', () => {
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(policy).not.toContain('unsafe-hashes');
    expect(policy).not.toContain('*');
    expect(policy).not.toMatch(/https?:/);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
  });

  it('denies by default, and denies objects, framing, base and forms', () => {
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);
  });

  it('lets the page connect only to itself and the given WebSocket sources', () => {
    expect(directives.get('connect-src')).toEqual(["'self'", ...sources]);
    expect(parse(contentSecurityPolicy()).get('connect-src')).toEqual(["'self'"]);
  });

  it('is sent with the other security headers', () => {
    const headers = securityHeaders(sources);
    expect(headers['Content-Security-Policy']).toBe(policy);
    expect(headers['X-Content-Type-Options']).toBe('nosniff');
    expect(headers['Cross-Origin-Opener-Policy']).toBe('same-origin');
    expect(headers['Referrer-Policy']).toBe('no-referrer');
  });
});
