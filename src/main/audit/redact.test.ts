import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../shared/canonical-json';
import { decisionRecord, openTempAuditLog, type TempAuditLog } from './audit-test-support';
import fs from 'node:fs';
import path from 'node:path';
import { ARGS_KEY_FILE_NAME, keyedArgsHash, loadArgsHashKey } from './args-hash';
import { sha256Hex } from './audit-row';
import { REDACTED, redactText, redactValue, STORED_STRING_MAX_LENGTH } from './redact';

describe('redactValue: secret-named keys', () => {
  it('replaces values under key/token/secret/password/auth/credential/cookie/session keys at any depth, in any case', () => {
    const args = {
      path: '/home/ada/notes.md',
      apiKey: 'abc',
      API_KEY: 'abc',
      nested: { deeper: { Access_Token: 'x', refreshTOKEN: 'y', clientSecret: 'z', safe: 1 } },
      list: [{ password: 'hunter2' }, { passwd: 'hunter3' }, { Authorization: 'Basic xyz' }, { value: 'kept' }],
      credentials: { user: 'ada', pass: 'p' },
      'Set-Cookie': 'id=1',
      session_id: 'abc',
      count: 3,
    };
    expect(redactValue(args)).toEqual({
      path: '/home/ada/notes.md',
      apiKey: REDACTED,
      API_KEY: REDACTED,
      nested: { deeper: { Access_Token: REDACTED, refreshTOKEN: REDACTED, clientSecret: REDACTED, safe: 1 } },
      list: [{ password: REDACTED }, { passwd: REDACTED }, { Authorization: REDACTED }, { value: 'kept' }],
      credentials: REDACTED,
      'Set-Cookie': REDACTED,
      session_id: REDACTED,
      count: 3,
    });
  });

  it('keeps null under a secret key (there is nothing to hide) and never mutates its input', () => {
    const args = { token: null, inner: { secret: 'x' } };
    const copy = structuredClone(args);
    expect(redactValue(args)).toEqual({ token: null, inner: { secret: REDACTED } });
    expect(args).toEqual(copy);
  });

  it('keeps a __proto__ key as a key, never as a prototype', () => {
    const args = JSON.parse('{"__proto__": {"polluted": "sk-0123456789abcdefABCDEF"}, "a": 1}') as Record<
      string,
      unknown
    >;
    const redacted = redactValue(args) as Record<string, unknown>;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.keys(redacted)).toEqual(['__proto__', 'a']);
    expect(canonicalJson(redacted)).toBe(`{"__proto__":{"polluted":"${REDACTED}"},"a":1}`);
  });
});

describe('redactText: values that look like secrets', () => {
  const secrets: [string, string][] = [
    ['OpenAI key', 'sk-proj-AbCdEf0123456789AbCdEf0123456789'],
    ['Anthropic key', 'sk-ant-api03-AbCdEf0123456789_AbCdEf0123456789-xyz'],
    ['GitHub token', 'ghp_0123456789abcdefghijABCDEFGHIJ012345'],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
    ['Slack token', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
    ['AWS access key', 'AKIAIOSFODNN7EXAMPLE'],
    ['Google API key', 'AIzaSyA-0123456789abcdefghijklmnopqrstu'],
    ['Stripe key', 'sk_live_0123456789abcdefABCDEF'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['long hex', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['long base64', 'q83vEjRWeJq8Xx2LmN0pQrStUvWxYz12AbCdEfGh+/9kLmNoP=='],
    ['base64url with word-shaped runs (once passed as words)', 'IeidX365opxHqgzEaipkcdAoMFhKgrjvbzuWpzwm'],
    ['private key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----'],
  ];

  it.each(secrets)('%s: redacted alone and inside a sentence', (_name, secret) => {
    expect(redactText(secret)).toBe(REDACTED);
    const sentence = `use ${secret} now`;
    expect(redactText(sentence)).toBe(`use ${REDACTED} now`);
  });

  it('keeps the scheme of an Authorization value and the user of a URL, hiding only the secret part', () => {
    expect(redactText('Authorization: Bearer abcdef123456')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactText('curl -H "Authorization: Basic dXNlcjpwYXNz"')).toBe(
      `curl -H "Authorization: Basic ${REDACTED}"`,
    );
    expect(redactText('postgres://ada:hunter2@db.example.com/app')).toBe(
      `postgres://ada:${REDACTED}@db.example.com/app`,
    );
    expect(redactText('https://api.example.com/v1?api_key=abc123&q=cats&access_token=zzz')).toBe(
      `https://api.example.com/v1?api_key=${REDACTED}&q=cats&access_token=${REDACTED}`,
    );
  });

  it('leaves ordinary text alone: paths, URLs, UUIDs, identifiers, sentences, short hex', () => {
    const ordinary = [
      '/Users/AdaLovelace/Documents/Projects/AnalyticalEngine2024/src/index.ts',
      '/usr/lib/x86_64-linux-gnu/libssl.so.3',
      'C:\\Users\\Ada\\AppData\\Roaming\\AI Workbench\\settings.json',
      'https://github.com/modelcontextprotocol/typescript-sdk/blob/main/src/types.ts',
      '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1',
      'getUserAccountSettingsForOrganization2',
      'ThisIsAVeryLongIdentifierNameWithNumbers123',
      'The quick brown fox jumps over the lazy dog 1234567890 times.',
      'deadbeef',
      'SELECT * FROM users WHERE id = 42',
    ];
    for (const text of ordinary) expect(redactText(text)).toBe(text);
  });

  // The rule lets about one random token in a million pass as words (measured; see looksLikeToken), so the
  // property runs on a fixed seed: the same 3,000 fresh-looking tokens every time, never a flaky failure.
  it('redacts random tokens of 24 bytes or more, in base64, base64url or hex', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 24, max: 64 }),
        fc.constantFrom('base64', 'base64url', 'hex'),
        fc.string({ minLength: 8, maxLength: 8 }),
        (bytes, encoding, seedText) => {
          const token = Buffer.from(
            Array.from({ length: bytes }, (_, index) => fc.hash(`${seedText}:${index}`) & 0xff),
          ).toString(encoding as BufferEncoding);
          fc.pre(encoding === 'hex' || (/[a-z]/.test(token) && /[A-Z]/.test(token) && /[0-9]/.test(token)));
          const redacted = redactText(`key is ${token}`);
          expect(redacted).not.toContain(token.replace(/=+$/, '').slice(0, 32));
        },
      ),
      { numRuns: 3000, seed: 20260101 },
    );
  });

  it('cuts long strings, and never between the halves of a surrogate pair', () => {
    const long = 'a'.repeat(STORED_STRING_MAX_LENGTH + 100);
    expect(redactValue(long)).toBe(`${'a'.repeat(STORED_STRING_MAX_LENGTH)}…[100 more characters]`);
    const emoji = `${'a'.repeat(STORED_STRING_MAX_LENGTH - 1)}🧪🧪`;
    const cut = redactValue(emoji) as string;
    expect(cut.startsWith(`${'a'.repeat(STORED_STRING_MAX_LENGTH - 1)}…`)).toBe(true);
  });
});

describe('redaction in the audit log', () => {
  let target: TempAuditLog;
  beforeEach(() => {
    target = openTempAuditLog();
  });
  afterEach(() => target.close());

  it('the arguments hash is of the original: arguments that differ only in a redacted value store alike but hash apart', () => {
    const one = target.log.recordDecision(
      decisionRecord(0, { args: { token: 'first', body: 'sk-aaaaaaaaaaaaaaaaaaaaaaaa' } }),
    );
    const two = target.log.recordDecision(
      decisionRecord(0, { args: { token: 'second', body: 'sk-bbbbbbbbbbbbbbbbbbbbbbbb' } }),
    );
    expect(one.args).toEqual(two.args);
    expect(one.args).toEqual({ token: REDACTED, body: REDACTED });
    const key = loadArgsHashKey(target.dataDir);
    expect(one.argsHash).toBe(
      keyedArgsHash(key, canonicalJson({ token: 'first', body: 'sk-aaaaaaaaaaaaaaaaaaaaaaaa' })),
    );
    expect(two.argsHash).toBe(
      keyedArgsHash(key, canonicalJson({ token: 'second', body: 'sk-bbbbbbbbbbbbbbbbbbbbbbbb' })),
    );
  });

  it('a redacted secret cannot be guessed from the row: the hash is keyed, and the key is not in the log or its export', async () => {
    // A short password, redacted in the stored arguments: with an unkeyed hash, trying every 4-digit PIN finds it.
    const entry = target.log.recordDecision(decisionRecord(0, { args: { user: 'ada', password: '4711' } }));
    expect(entry.args).toEqual({ user: 'ada', password: REDACTED });
    expect(entry.argsHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const guesses = Array.from({ length: 10_000 }, (_, pin) => String(pin).padStart(4, '0'));
    const unkeyed = (pin: string): string => sha256Hex(canonicalJson({ user: 'ada', password: pin }));
    expect(
      guesses.filter((pin) => [unkeyed(pin), `hmac-sha256:${unkeyed(pin)}`].includes(entry.argsHash as string)),
    ).toEqual([]);
    // The key: its own owner-only file in the data folder, the same at every open; nowhere in the database.
    const keyFile = path.join(target.dataDir, ARGS_KEY_FILE_NAME);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = fs.readFileSync(keyFile, 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.readFileSync(target.file).includes(Buffer.from(key))).toBe(false);
    expect(entry.argsHash).toBe(
      keyedArgsHash(loadArgsHashKey(target.dataDir), canonicalJson({ user: 'ada', password: '4711' })),
    );
  });

  it('the arguments hash does not depend on key order, and is the same whether or not anything was redacted', () => {
    const plain = target.log.recordDecision(decisionRecord(0, { args: { b: 1, a: { d: 2, c: 3 } } }));
    const reordered = target.log.recordDecision(decisionRecord(0, { args: { a: { c: 3, d: 2 }, b: 1 } }));
    expect(plain.argsHash).toBe(reordered.argsHash);
    expect(plain.args).toEqual({ a: { c: 3, d: 2 }, b: 1 });
  });

  it('edited arguments: redacted the same way, hashed whole, beside the original', () => {
    const entry = target.log.recordDecision(
      decisionRecord(0, {
        args: { path: '/etc/passwd', auth: { user: 'root' } },
        editedArgs: { path: '/tmp/x', auth: { user: 'ada' }, note: 'Bearer qwertyuiop' },
      }),
    );
    expect(entry.args).toEqual({ path: '/etc/passwd', auth: REDACTED });
    expect(entry.editedArgs).toEqual({ path: '/tmp/x', auth: REDACTED, note: `Bearer ${REDACTED}` });
    expect(entry.editedArgsHash).toBe(
      keyedArgsHash(
        loadArgsHashKey(target.dataDir),
        canonicalJson({ path: '/tmp/x', auth: { user: 'ada' }, note: 'Bearer qwertyuiop' }),
      ),
    );
  });

  it('secrets never reach the database file in any column', () => {
    const secret = 'sk-live-THIS-MUST-NOT-BE-STORED-0123456789';
    target.log.recordDecision(
      decisionRecord(0, {
        args: { q: secret, deep: [{ x: secret }] },
        editedArgs: { q: secret },
        reason: `I saw ${secret}`,
      }),
    );
    target.log.recordToolResult({
      chatId: 'c',
      toolCallId: 'call-0',
      serverName: 'Web',
      toolName: 'fetch',
      outcome: 'error',
      durationMs: 1,
      resultBytes: 0,
      error: `rejected ${secret}`,
    });
    const dump = JSON.stringify(target.db.prepare('SELECT * FROM audit_log').all());
    expect(dump).not.toContain('THIS-MUST-NOT-BE-STORED');
  });
});
