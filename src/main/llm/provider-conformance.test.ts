// The behaviour every adapter shares, driven through each official SDK against the fake server's real wire formats.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GenerateEvent } from './conversation';
import { refusedURL, startFakeLlmServer, type FakeLlmServer } from './testing/fake-llm-server';
import type { FakeErrorKind } from './testing/fake-turns';
import { collect, eventsThroughText, FORMATS, LABELS, providerFor, TEST_KEY, textOf, userText } from './testing/drive';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer({ apiKey: TEST_KEY });
});
afterEach(async () => {
  await server.close();
});

const toolCalls = (events: readonly GenerateEvent[]) =>
  events.flatMap((event) => (event.type === 'tool_call' ? [event.call] : []));

describe.each(FORMATS)('%s adapter', (format) => {
  it('streams text in deltas, then usage, then finish', async () => {
    server.script({ kind: 'reply', text: ['Hel', 'lo, ', 'world'], usage: { input: 21, output: 3 } });
    const { events, error } = await collect(providerFor(format, server).generate(userText('Say hello')));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo, ' },
      { type: 'text', delta: 'world' },
      { type: 'usage', usage: { inputTokens: 21, outputTokens: 3 } },
      { type: 'finish', reason: 'stop' },
    ]);
    const [request] = server.generations();
    expect(request?.model).toBe('fake-large');
    expect(request?.stream).toBe(true);
    expect(request?.apiKey).toBe(TEST_KEY);
  });

  it('says when the reply was cut by the output limit', async () => {
    server.script({ kind: 'reply', text: ['Once upon'], finish: 'length' });
    const { events } = await collect(providerFor(format, server).generate(userText('Tell a story')));
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'length' });
  });

  it('assembles three tool calls of one turn, arguments streamed in fragments', async () => {
    server.script({
      kind: 'reply',
      text: ['Let me look.'],
      toolCalls: [
        { id: 'call_a', name: 'files__list_directory', argumentChunks: ['{"pa', 'th":', ' "."}'] },
        { id: 'call_b', name: 'files__read_text_file', argumentChunks: ['{"path"', ': "notes.md"', '}'] },
        {
          id: 'call_c',
          name: 'files__write_file',
          argumentChunks: ['{"path": "out.txt", ', '"content": "h\\u00e9llo\\n"', '}'],
        },
      ],
    });
    const { events, error } = await collect(providerFor(format, server).generate(userText('Look around')));
    expect(error).toBeUndefined();
    const calls = toolCalls(events);
    expect(calls.map((call) => [call.name, call.arguments])).toEqual([
      ['files__list_directory', { kind: 'parsed', value: { path: '.' } }],
      ['files__read_text_file', { kind: 'parsed', value: { path: 'notes.md' } }],
      ['files__write_file', { kind: 'parsed', value: { path: 'out.txt', content: 'héllo\n' } }],
    ]);
    if (format === 'gemini') {
      // Gemini sends no ids: each call gets a made-up one, unique in the turn.
      expect(new Set(calls.map((call) => call.id)).size).toBe(3);
      for (const call of calls) expect(call.id).toMatch(/^wb-gemini-.+-\d$/);
    } else {
      expect(calls.map((call) => call.id)).toEqual(['call_a', 'call_b', 'call_c']);
    }
    expect(textOf(events)).toBe('Let me look.');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
  });

  it('marks arguments that are not valid JSON as malformed, with the raw text, and goes on', async () => {
    server.script({
      kind: 'reply',
      toolCalls: [
        { id: 'call_ok', name: 'files__list_directory', argumentChunks: ['{"path": "."}'] },
        {
          id: 'call_bad',
          name: 'files__write_file',
          argumentChunks: ['{"path": "a.txt", ', '"content": "unterminated'],
        },
      ],
    });
    const { events, error } = await collect(providerFor(format, server).generate(userText('Write it')));
    expect(error).toBeUndefined();
    if (format === 'gemini') {
      // Gemini parses arguments itself and says so in the finish reason instead of sending the text (its SDK drops
      // the finishMessage that quotes it).
      expect(toolCalls(events)).toEqual([]);
      expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'malformed_tool_call' });
      return;
    }
    const [good, bad] = toolCalls(events);
    expect(good?.arguments).toEqual({ kind: 'parsed', value: { path: '.' } });
    expect(bad).toMatchObject({ id: 'call_bad', name: 'files__write_file' });
    expect(bad?.arguments).toMatchObject({
      kind: 'malformed',
      raw: '{"path": "a.txt", "content": "unterminated',
      problem: expect.stringContaining('not valid JSON'),
    });
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
  });

  const errorCases: [FakeErrorKind, string, RegExp][] = [
    ['bad_key', 'llm_bad_key', /did not accept the API key/],
    ['model_not_found', 'llm_model_not_found', /has no model "fake-large".*Pick another model/],
    ['server_error', 'llm_server_error', /had a server error \(HTTP 500\)/],
    ['overloaded', 'llm_server_error', /had a server error \(HTTP 5\d\d\).*[Oo]verloaded/],
    ['context_too_long', 'llm_context_too_long', /conversation is too long for fake-large/],
  ];
  it.each(errorCases)('maps the provider error %s to %s', async (kind, code, message) => {
    server.script({ kind: 'error', error: kind });
    const { events, error } = await collect(providerFor(format, server).generate(userText('Hi')));
    expect(events).toEqual([]);
    expect(error?.code).toBe(code);
    expect(error?.message).toMatch(message);
    if (code !== 'llm_context_too_long') expect(error?.message).toContain(LABELS[format]);
  });

  it('reports a rate limit with the seconds to wait', async () => {
    server.script({ kind: 'error', error: 'rate_limit', retryAfterSeconds: 17 });
    const { error } = await collect(providerFor(format, server).generate(userText('Hi')));
    expect(error?.code).toBe('llm_rate_limited');
    expect(error?.details).toMatchObject({ retryAfterSeconds: 17, status: 429 });
    expect(error?.message).toMatch(/limiting requests \(HTTP 429\).*Try again in 17 seconds\./);
  });

  it('reports a wrong key as a bad key, and sends the key the way its SDK does', async () => {
    const { error } = await collect(providerFor(format, server, 'sk-wrong').generate(userText('Hi')));
    expect(error?.code).toBe('llm_bad_key');
    expect(server.generations()[0]?.apiKey).toBe('sk-wrong');
    const header = { openai: 'authorization', anthropic: 'authorization', gemini: 'x-goog-api-key' }[format];
    expect(String(server.generations()[0]?.headers[header])).toContain('sk-wrong');
  });

  it('maps an error event inside the stream', async () => {
    server.script({
      kind: 'reply',
      text: ['Part', 'ial'],
      errorAfter: { events: eventsThroughText(format, 2), error: 'overloaded' },
    });
    const { events, error } = await collect(providerFor(format, server).generate(userText('Hi')));
    expect(error?.code).toBe('llm_server_error');
    expect(events.some((event) => event.type === 'finish')).toBe(false);
  });

  it('reports a stream dropped mid-way as a dropped stream, after the text that came', async () => {
    server.script({ kind: 'reply', text: ['One ', 'two ', 'three ', 'four'], dropAfter: eventsThroughText(format, 2) });
    const { events, error } = await collect(providerFor(format, server).generate(userText('Count')));
    expect(error?.code).toBe('llm_stream_dropped');
    expect(error?.message).toMatch(/ended in the middle of the reply/);
    expect(textOf(events).length).toBeGreaterThan(0);
    expect(events.some((event) => event.type === 'finish')).toBe(false);
  });

  it('reports a refused connection as unreachable, naming the address', async () => {
    const baseURL = await refusedURL();
    const { error } = await collect(providerFor(format, { baseURL }).generate(userText('Hi')));
    expect(error?.code).toBe('llm_unreachable');
    expect(error?.message).toContain('connection refused');
    expect(error?.message).toContain(baseURL);
  });

  it('stops on abort mid-stream: the server sees the connection close, the stream ends with aborted', async () => {
    server.script({ kind: 'reply', text: ['First ', 'second ', 'third'], holdOpenAfter: eventsThroughText(format, 1) });
    const controller = new AbortController();
    const events: GenerateEvent[] = [];
    for await (const event of providerFor(format, server).generate(userText('Go'), controller.signal)) {
      events.push(event);
      if (event.type === 'text') controller.abort();
    }
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'aborted' });
    expect(await server.generations()[0]?.closed).toBe(true);
  });

  it('stops on abort while waiting for the response to start', async () => {
    server.script({ kind: 'reply', text: ['Never sent'], holdOpenAfter: 0 });
    const controller = new AbortController();
    const run = collect(providerFor(format, server).generate(userText('Go'), controller.signal));
    await vi.waitFor(() => expect(server.generations()).toHaveLength(1));
    controller.abort();
    expect((await run).events).toEqual([{ type: 'finish', reason: 'aborted' }]);
    expect(await server.generations()[0]?.closed).toBe(true);
  });

  it('closes the connection when the caller stops reading early', async () => {
    server.script({ kind: 'reply', text: ['First ', 'second'], holdOpenAfter: eventsThroughText(format, 1) });
    for await (const event of providerFor(format, server).generate(userText('Go'))) {
      if (event.type === 'text') break;
    }
    expect(await server.generations()[0]?.closed).toBe(true);
  });

  it('ends at once with aborted when the signal was aborted before the start', async () => {
    const { events } = await collect(providerFor(format, server).generate(userText('Go'), AbortSignal.abort()));
    expect(events).toEqual([{ type: 'finish', reason: 'aborted' }]);
    expect(server.generations()).toEqual([]);
  });

  it('lists the models', async () => {
    const models = await providerFor(format, server).listModels();
    expect(models.map((model) => model.id)).toEqual(['fake-large', 'fake-small']);
    if (format !== 'openai') expect(models[0]?.label).toBe('Fake Large');
    if (format === 'gemini') expect(models[0]).toMatchObject({ contextWindow: 200_000, maxOutputTokens: 32_000 });
  });

  it('maps errors of the model list', async () => {
    await expect(providerFor(format, server, 'sk-wrong').listModels()).rejects.toMatchObject({ code: 'llm_bad_key' });
    await expect(providerFor(format, { baseURL: await refusedURL() }).listModels()).rejects.toMatchObject({
      code: 'llm_unreachable',
    });
  });
});
