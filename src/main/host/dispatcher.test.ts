import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatTitleSchema, type Chat } from '../../shared/chat';
import { methodNames, methods, type MethodName } from '../../shared/contract';
import { EnvelopeSchema, type Envelope, type WorkbenchErrorData } from '../../shared/errors';
import { DEFAULT_CHAT_TITLE } from '../chat/chat-service';
import { WorkbenchError } from '../errors';
import { createServices, type Services } from '../services';
import { createDispatcher, type Dispatch, type MethodHandlers } from './dispatcher';
import { createHandlers } from './handlers';

let dir: string;
let services: Services;
let onInternalError: ReturnType<typeof vi.fn<(error: unknown, method: string) => void>>;
let dispatch: Dispatch;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-dispatch-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '1.2.3' });
  onInternalError = vi.fn<(error: unknown, method: string) => void>();
  dispatch = createDispatcher(createHandlers(services), onInternalError);
});

afterEach(() => {
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectOk(envelope: Envelope): unknown {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.value;
}

function expectError(envelope: Envelope): WorkbenchErrorData {
  if (envelope.ok) throw new Error(`expected an error, got ${JSON.stringify(envelope.value)}`);
  return envelope.error;
}

/** The issues the dispatcher reports with invalid_input: `{ path, message }`, path '' for the input itself. */
function issuesOf(error: WorkbenchErrorData): { path: string; message: string }[] {
  return (error.details as { issues: { path: string; message: string }[] }).issues;
}

describe('dispatcher', () => {
  it('runs a valid call and answers with the handler result', async () => {
    const created = expectOk(await dispatch('chat.create', { title: 'Hello' })) as Chat;
    expect(created.title).toBe('Hello');
    expect(expectOk(await dispatch('chat.list', undefined))).toEqual({ chats: [created] });
    expect(expectOk(await dispatch('chat.list', {}))).toEqual({ chats: [created] });
    expect(expectOk(await dispatch('chat.get', { id: created.id }))).toEqual(created);
    expect(expectOk(await dispatch('chat.delete', { id: created.id }))).toEqual({ id: created.id });
    expect(expectOk(await dispatch('app.info', undefined))).toMatchObject({
      name: 'AI Workbench',
      host: 'browser',
      version: '1.2.3',
      dataDir: dir,
    });
    expect(onInternalError).not.toHaveBeenCalled();
  });

  it('answers unknown_method for a name outside the contract, whatever its type', async () => {
    for (const method of [
      'chat.explode',
      'constructor',
      '__proto__',
      'toString',
      '',
      42,
      null,
      undefined,
      { method: 'chat.list' },
    ]) {
      const error = expectError(await dispatch(method, {}));
      expect(error.code).toBe('unknown_method');
    }
    expect(expectError(await dispatch('chat.explode', {})).message).toBe('Unknown method "chat.explode".');
    expect(expectError(await dispatch(42, {})).message).toBe('Unknown method (number).');
    expect(expectError(await dispatch(null, {})).message).toBe('Unknown method (null).');
  });

  it('shortens a huge unknown method name in its message', async () => {
    const error = expectError(await dispatch('x'.repeat(100_000), {}));
    expect(error.code).toBe('unknown_method');
    expect(error.message.length).toBeLessThan(200);
  });

  it('answers invalid_input naming the field', async () => {
    const error = expectError(await dispatch('chat.rename', { id: '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1', title: 42 }));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^Invalid input for chat\.rename: title: /);
    expect(issuesOf(error)).toEqual([{ path: 'title', message: expect.any(String) }]);

    const badId = expectError(await dispatch('chat.get', { id: 'not-a-uuid' }));
    expect(badId.code).toBe('invalid_input');
    expect(badId.message).toContain('id: ');

    const missing = expectError(await dispatch('chat.rename', {}));
    expect(missing.message).toContain('id: ');
    expect(missing.message).toContain('title: ');

    const notAnObject = expectError(await dispatch('chat.get', 'abc'));
    expect(notAnObject.message).toMatch(/^Invalid input for chat\.get: input: /);

    const extra = expectError(await dispatch('chat.list', { sql: 'DROP TABLE chats' }));
    expect(extra.code).toBe('invalid_input');
    expect(extra.message).toContain('sql');
  });

  it('trims titles before they reach the service', async () => {
    const created = expectOk(await dispatch('chat.create', { title: '  \t Trip plans \u00a0 ' })) as Chat;
    expect(created.title).toBe('Trip plans');
    const renamed = expectOk(await dispatch('chat.rename', { id: created.id, title: '\n renamed \n' })) as Chat;
    expect(renamed.title).toBe('renamed');
  });

  it('refuses an empty, blank, multi-line, over-long or broken-unicode title, and changes nothing', async () => {
    const chat = expectOk(await dispatch('chat.create', { title: 'keep me' })) as Chat;
    for (const title of ['', '   ', '\t\n', 'two\nlines', 'bell\u0007', 'x'.repeat(201), 'half \ud800 pair']) {
      for (const [method, input] of [
        ['chat.rename', { id: chat.id, title }],
        ['chat.create', { title }],
      ] as const) {
        const error = expectError(await dispatch(method, input));
        expect(error.code).toBe('invalid_input');
        expect(error.message).toContain('title: ');
      }
    }
    expect(expectOk(await dispatch('chat.list', undefined))).toEqual({ chats: [chat] });
  });

  it('accepts a title of exactly 200 characters and emoji made of surrogate pairs', async () => {
    expect((expectOk(await dispatch('chat.create', { title: 'y'.repeat(200) })) as Chat).title).toHaveLength(200);
    const emoji = '🧪 test 👩🏽‍💻';
    const created = expectOk(await dispatch('chat.create', { title: emoji })) as Chat;
    expect(expectOk(await dispatch('chat.get', { id: created.id }))).toEqual(created);
  });

  it('defaults the title to "New chat"', async () => {
    expect((expectOk(await dispatch('chat.create', undefined)) as Chat).title).toBe(DEFAULT_CHAT_TITLE);
    expect((expectOk(await dispatch('chat.create', {})) as Chat).title).toBe('New chat');
  });

  it('passes a service not_found through as data', async () => {
    const id = '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1';
    for (const method of ['chat.get', 'chat.delete'] as const) {
      expect(expectError(await dispatch(method, { id }))).toEqual({
        code: 'not_found',
        message: `No chat has the id ${id}.`,
        details: { id },
      });
    }
    expect(expectError(await dispatch('chat.rename', { id, title: 'x' })).code).toBe('not_found');
    expect(onInternalError).not.toHaveBeenCalled();
  });

  it('turns a plain Error thrown by a handler into internal, and reports it', async () => {
    const boom = new Error('disk on fire');
    const handlers: MethodHandlers = {
      ...createHandlers(services),
      'chat.list': () => {
        throw boom;
      },
    };
    const reported = vi.fn();
    const error = expectError(await createDispatcher(handlers, reported)('chat.list', undefined));
    // A sentence of what could not be done, never the method's name; the method and the cause stay in the details.
    expect(error).toEqual({
      code: 'internal',
      message: "Could not list the chats: disk on fire. The details are in the app's log.",
      details: { method: 'chat.list', cause: 'disk on fire' },
    });
    expect(reported).toHaveBeenCalledExactlyOnceWith(boom, 'chat.list');
  });

  it('turns a rejected promise and a thrown non-Error into internal', async () => {
    const reported = vi.fn();
    const handlers: MethodHandlers = {
      ...createHandlers(services),
      'chat.list': () => Promise.reject(new Error('async failure')),
      'app.info': () => {
        throw 'a string';
      },
    };
    const failing = createDispatcher(handlers, reported);
    expect(expectError(await failing('chat.list', undefined))).toMatchObject({
      code: 'internal',
      message: "Could not list the chats: async failure. The details are in the app's log.",
    });
    expect(expectError(await failing('app.info', undefined))).toMatchObject({
      code: 'internal',
      message: "Could not do that: a string. The details are in the app's log.",
      details: { method: 'app.info', cause: 'a string' },
    });
    expect(reported).toHaveBeenCalledTimes(2);
  });

  it('passes a WorkbenchError thrown by a handler through with its code and details, without reporting it', async () => {
    const reported = vi.fn();
    const handlers: MethodHandlers = {
      ...createHandlers(services),
      'chat.list': () => {
        throw new WorkbenchError('unavailable', 'Try again later.', { retryAfter: 5 });
      },
    };
    expect(expectError(await createDispatcher(handlers, reported)('chat.list', undefined))).toEqual({
      code: 'unavailable',
      message: 'Try again later.',
      details: { retryAfter: 5 },
    });
    expect(reported).not.toHaveBeenCalled();
  });

  it('answers internal when a handler returns a result that does not match the contract', async () => {
    const reported = vi.fn();
    const handlers = {
      ...createHandlers(services),
      'chat.get': () => ({ id: 'not-a-uuid', title: 7 }),
    } as unknown as MethodHandlers;
    const error = expectError(
      await createDispatcher(handlers, reported)('chat.get', { id: '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1' }),
    );
    expect(error).toEqual({
      code: 'internal',
      message:
        "Could not open the chat: the app gave an answer it does not understand. The details are in the app's log.",
      details: { method: 'chat.get' },
    });
    expect(reported).toHaveBeenCalledOnce();
    expect(reported.mock.calls[0]?.[1]).toBe('chat.get');
  });

  it('never passes unvalidated input to a handler', async () => {
    const seen: unknown[] = [];
    const handlers: MethodHandlers = {
      ...createHandlers(services),
      'chat.rename': (input) => {
        seen.push(input);
        return services.chats.rename(input.id, input.title);
      },
    };
    const guarded = createDispatcher(handlers, onInternalError);
    await guarded('chat.rename', { id: 'x', title: 'y' });
    await guarded('chat.rename', { id: '6d3c3c9e-3f0b-4d39-9df5-0cb1a0b1e1a1', title: 'ok', extra: true });
    expect(seen).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// The property: every contract method fed random and malformed payloads.

/** Strings people and attackers send: control characters, unpaired surrogates, emoji, RTL marks, SQL. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), maxLength: 10 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), maxLength: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u2028',
    '\u202e',
    '\ufeff',
    "'; DROP TABLE chats; --",
    '__proto__',
    'constructor',
    '%s%n',
    '../../etc/passwd',
  ),
);

/** Rare, big: up to about a megabyte. */
const hugeString = fc
  .tuple(fc.integer({ min: 1_000, max: 1_000_000 }), fc.constantFrom('a', ' ', 'é', '🧪', '\n', '\ud800'))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

const anyValue = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

/** A value for a field: right type, wrong type, or nonsense. */
const fieldValue = (validIds: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: validIds },
    { weight: 3, arbitrary: nastyString },
    { weight: 1, arbitrary: hugeString },
    { weight: 2, arbitrary: anyValue },
    { weight: 1, arbitrary: fc.uuid() },
  );

function payloadFor(validIds: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const field = fieldValue(validIds);
  return fc.oneof(
    anyValue,
    fc.dictionary(nastyString, anyValue, { maxKeys: 5 }),
    // the shape of a real input, with any field missing, wrong or extra
    fc.record({ id: field, title: field }, { requiredKeys: [] }),
    fc
      .tuple(fc.record({ id: field, title: field }), fc.dictionary(nastyString, anyValue, { minKeys: 1, maxKeys: 2 }))
      .map(([shaped, extra]) => ({
        ...shaped,
        ...extra,
      })),
    nastyString,
    hugeString,
    fc.constantFrom(undefined, null, {}, [], 0, -1, Number.NaN, true, Symbol('s'), () => 'function'),
  );
}

/** The top-level fields of a method's input: its object schema, unwrapped from optional. */
function inputFields(method: MethodName): string[] {
  let schema: z.ZodType = methods[method].input;
  if (schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

describe('property: every contract method fed random and malformed payloads', () => {
  it('never crashes, answers invalid_input naming the field, and leaves a sound database', async () => {
    const known: string[] = [];
    for (let index = 0; index < 3; index++)
      known.push((expectOk(await dispatch('chat.create', { title: `seed ${index}` })) as Chat).id);
    const validIds = fc.constantFrom(...known);
    const answered = new Map<MethodName, Set<string>>(methodNames.map((method) => [method, new Set<string>()]));

    for (const method of methodNames) {
      await fc.assert(
        fc.asyncProperty(payloadFor(validIds), async (payload) => {
          const envelope = await dispatch(method, payload);
          expect(EnvelopeSchema.safeParse(envelope).success).toBe(true);
          if (envelope.ok) {
            expect(methods[method].output.safeParse(envelope.value).success).toBe(true);
            answered.get(method)?.add('ok');
            return;
          }
          const { code, message } = envelope.error;
          answered.get(method)?.add(code);
          expect(['invalid_input', 'not_found']).toContain(code);
          if (code === 'invalid_input') {
            expect(message.startsWith(`Invalid input for ${method}: `)).toBe(true);
            const issues = issuesOf(envelope.error);
            expect(issues.length).toBeGreaterThan(0);
            for (const issue of issues) {
              // Each issue names its field (`title: …`), or `input: …` when the payload as a whole is wrong.
              expect(issue.path === '' || inputFields(method).includes(issue.path.split('.')[0] ?? '')).toBe(true);
              expect(message).toContain(`${issue.path || 'input'}: ${issue.message}`);
            }
          }
        }),
        { numRuns: 300 },
      );
    }

    expect(onInternalError).not.toHaveBeenCalled();
    // Every method was driven both to an answer and to a refusal.
    for (const method of methodNames) {
      expect([...(answered.get(method) ?? [])]).toContain('invalid_input');
    }
    expect(answered.get('chat.create')).toContain('ok');
    expect(answered.get('chat.list')).toContain('ok');
    expect(answered.get('app.info')).toContain('ok');

    // Nothing invalid was stored: every title is one a person could have typed.
    const rows = services.chats.list();
    for (const chat of rows) expect(ChatTitleSchema.parse(chat.title)).toBe(chat.title);

    services.close();
    const check = new BetterSqlite3(services.databaseFile, { readonly: true });
    try {
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(check.pragma('foreign_key_check')).toEqual([]);
      expect(check.prepare('SELECT count(*) FROM chats').pluck().get()).toBe(rows.length);
    } finally {
      check.close();
    }
    services = createServices({ dataDir: dir, host: 'browser', version: '1.2.3' });
  });

  it('a payload with one field of the wrong type or value is refused, naming that field', async () => {
    const id = (expectOk(await dispatch('chat.create', { title: 'x' })) as Chat).id;
    const wrongType = fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.object({ maxDepth: 1 }),
    );
    const badTitle = fc.oneof(
      wrongType,
      fc.constantFrom('', '   ', 'a\nb', 'tab\tinside', '\u0000', 'x'.repeat(201), '\udfff'),
      fc.string({ minLength: 201, maxLength: 400 }).filter((title) => title.trim().length > 200),
    );
    const badId = fc.oneof(
      wrongType,
      nastyString.filter((text) => !/^[0-9a-f-]{36}$/i.test(text)),
    );
    const cases = fc.oneof(
      badTitle.map((title) => ({ method: 'chat.rename' as const, input: { id, title }, field: 'title' })),
      badTitle.map((title) => ({ method: 'chat.create' as const, input: { title }, field: 'title' })),
      badId.map((bad) => ({ method: 'chat.rename' as const, input: { id: bad, title: 'fine' }, field: 'id' })),
      badId.map((bad) => ({ method: 'chat.get' as const, input: { id: bad }, field: 'id' })),
      badId.map((bad) => ({ method: 'chat.delete' as const, input: { id: bad }, field: 'id' })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ method, input, field }) => {
        const error = expectError(await dispatch(method, input));
        expect(error.code).toBe('invalid_input');
        expect(error.message).toContain(`${field}: `);
        expect(new Set(issuesOf(error).map((issue) => issue.path))).toEqual(new Set([field]));
      }),
      { numRuns: 300 },
    );
    expect(services.chats.list().map((chat) => chat.title)).toEqual(['x']);
  });
});
