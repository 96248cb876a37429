// What each adapter sends: the neutral conversation in each provider's own format, asserted on the request
// body the fake server recorded (the bytes the official SDK put on the wire).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AssistantMessage, GenerateRequest, ModelToolCall, ToolMessage } from './conversation';
import { collect, providerFor, TEST_KEY } from './testing/drive';
import { startFakeLlmServer, type FakeLlmServer } from './testing/fake-llm-server';
import { FAKE_THOUGHT_SIGNATURE } from './testing/gemini-wire';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer({ apiKey: TEST_KEY });
  server.script({ kind: 'reply', text: ['ok'] });
});
afterEach(async () => {
  await server.close();
});

const PNG = 'iVBORw0KGgoAAAANSUhEUg==';
const SCREENSHOT = 'R0lGODlhAQABAAAAACw=';
const READ_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { path: { type: 'string', description: 'Path of the file' } },
  required: ['path'],
  additionalProperties: false,
};

/** A user question with an image; the model calls two tools (one with malformed arguments); one result has an image, the other was denied. */
function conversation(ids: [string, string], signature?: string): GenerateRequest {
  const read: ModelToolCall = {
    id: ids[0],
    name: 'files__read_text_file',
    arguments: { kind: 'parsed', value: { path: 'notes.md' } },
    ...(signature ? { providerMetadata: { gemini: { thoughtSignature: signature } } } : {}),
  };
  const write: ModelToolCall = {
    id: ids[1],
    name: 'files__write_file',
    arguments: { kind: 'malformed', raw: '{"path": "out', problem: 'not valid JSON' },
  };
  const assistant: AssistantMessage = { role: 'assistant', text: 'Reading it.', toolCalls: [read, write] };
  const first: ToolMessage = {
    role: 'tool',
    results: [
      {
        toolCallId: ids[0],
        toolName: 'files__read_text_file',
        content: [
          { type: 'text', text: '# Notes' },
          { type: 'image', mimeType: 'image/gif', data: SCREENSHOT },
        ],
        isError: false,
      },
    ],
  };
  const second: ToolMessage = {
    role: 'tool',
    results: [
      {
        toolCallId: ids[1],
        toolName: 'files__write_file',
        content: [{ type: 'text', text: 'User denied tool invocation' }],
        isError: true,
      },
    ],
  };
  return {
    model: 'fake-large',
    system: 'You are careful.',
    maxOutputTokens: 1000,
    tools: [
      { name: 'files__read_text_file', description: 'Read a text file', inputSchema: READ_SCHEMA },
      {
        name: 'files__list_allowed_directories',
        description: 'List the allowed directories',
        inputSchema: { type: 'object', properties: {} },
      },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in notes.md?' },
          { type: 'image', mimeType: 'image/png', data: PNG },
        ],
      },
      assistant,
      first,
      second,
    ],
  };
}

async function send(
  format: 'openai' | 'anthropic' | 'gemini',
  request: GenerateRequest,
): Promise<Record<string, unknown>> {
  const { error } = await collect(providerFor(format, server).generate(request));
  expect(error).toBeUndefined();
  return server.generations()[0]?.body as Record<string, unknown>;
}

describe('OpenAI chat completions request', () => {
  it('sends system, user images, assistant tool_calls, one role:tool message per result, and tool images after them', async () => {
    const body = await send('openai', conversation(['call_1', 'call_2']));
    expect(body['messages']).toEqual([
      { role: 'system', content: 'You are careful.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in notes.md?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
      {
        role: 'assistant',
        content: 'Reading it.',
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'files__read_text_file', arguments: '{"path":"notes.md"}' },
          },
          // Malformed arguments go back exactly as the model sent them.
          { id: 'call_2', type: 'function', function: { name: 'files__write_file', arguments: '{"path": "out' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '# Notes\n[1 image returned; sent in the next message]' },
      { role: 'tool', tool_call_id: 'call_2', content: 'User denied tool invocation' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by tool call call_1 (files__read_text_file):' },
          { type: 'image_url', image_url: { url: `data:image/gif;base64,${SCREENSHOT}` } },
        ],
      },
    ]);
    expect(body['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'files__read_text_file', description: 'Read a text file', parameters: READ_SCHEMA },
      },
      {
        type: 'function',
        function: {
          name: 'files__list_allowed_directories',
          description: 'List the allowed directories',
          parameters: { type: 'object', properties: {} },
        },
      },
    ]);
    expect(body).toMatchObject({
      model: 'fake-large',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 1000,
    });
  });

  it('sends plain user text as a string, no tools key without tools, and max_tokens to compatible servers', async () => {
    const { createOpenAiProvider } = await import('./openai-provider');
    const provider = createOpenAiProvider({
      kind: 'openai-compatible',
      label: 'Ollama',
      apiKey: TEST_KEY,
      baseURL: server.baseURL('openai'),
    });
    await collect(
      provider.generate({
        model: 'llama3',
        maxOutputTokens: 50,
        tools: [],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      }),
    );
    const body = server.generations()[0]?.body as Record<string, unknown>;
    expect(body['messages']).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(body).not.toHaveProperty('tools');
    expect(body['max_tokens']).toBe(50);
    expect(body).not.toHaveProperty('max_completion_tokens');
  });
});

describe('Anthropic messages request', () => {
  it('sends tool_use blocks and the results as tool_result blocks (text, images, is_error) in one user message', async () => {
    const body = await send('anthropic', conversation(['toolu_1', 'toolu_2']));
    expect(body['system']).toBe('You are careful.');
    expect(body['max_tokens']).toBe(1000);
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in notes.md?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'toolu_1', name: 'files__read_text_file', input: { path: 'notes.md' } },
          // tool_use.input must be an object: malformed arguments go back as {}, and the result says what happened.
          { type: 'tool_use', id: 'toolu_2', name: 'files__write_file', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [
              { type: 'text', text: '# Notes' },
              { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: SCREENSHOT } },
            ],
            is_error: false,
          },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [{ type: 'text', text: 'User denied tool invocation' }],
            is_error: true,
          },
        ],
      },
    ]);
    expect(body['tools']).toEqual([
      { name: 'files__read_text_file', description: 'Read a text file', input_schema: READ_SCHEMA },
      {
        name: 'files__list_allowed_directories',
        description: 'List the allowed directories',
        input_schema: { type: 'object', properties: {} },
      },
    ]);
  });

  it('puts words the person adds after tool results into the same user message, after the results', async () => {
    const request = conversation(['toolu_1', 'toolu_2']);
    request.messages.push({ role: 'user', content: [{ type: 'text', text: 'Go on' }] });
    const body = await send('anthropic', request);
    const messages = body['messages'] as { role: string; content: { type: string }[] }[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]?.content.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'text']);
  });
});

describe('Gemini generateContent request', () => {
  it('sends functionCall parts with their thought signature and the results as functionResponse parts, images after them', async () => {
    const body = await send('gemini', conversation(['wb-gemini-r1-0', 'wb-gemini-r1-1'], FAKE_THOUGHT_SIGNATURE));
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'What is in notes.md?' }, { inlineData: { mimeType: 'image/png', data: PNG } }] },
      {
        role: 'model',
        parts: [
          { text: 'Reading it.' },
          // Made-up ids are not sent: Gemini matches responses to calls by name and order.
          {
            functionCall: { name: 'files__read_text_file', args: { path: 'notes.md' } },
            thoughtSignature: FAKE_THOUGHT_SIGNATURE,
          },
          { functionCall: { name: 'files__write_file', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'files__read_text_file', response: { output: '# Notes' } } },
          { functionResponse: { name: 'files__write_file', response: { error: 'User denied tool invocation' } } },
          { inlineData: { mimeType: 'image/gif', data: SCREENSHOT } },
        ],
      },
    ]);
    expect(body['systemInstruction']).toMatchObject({ parts: [{ text: 'You are careful.' }] });
    expect(body['generationConfig']).toMatchObject({ maxOutputTokens: 1000 });
    expect(body['tools']).toEqual([
      {
        functionDeclarations: [
          {
            name: 'files__read_text_file',
            description: 'Read a text file',
            // Gemini's schema subset: no $schema, no additionalProperties, upper-case types.
            parameters: {
              type: 'OBJECT',
              properties: { path: { type: 'STRING', description: 'Path of the file' } },
              required: ['path'],
            },
          },
          // No parameters at all for a tool without properties: Gemini refuses an empty OBJECT.
          { name: 'files__list_allowed_directories', description: 'List the allowed directories' },
        ],
      },
    ]);
  });

  it('sends ids back when Gemini gave them', async () => {
    const body = await send('gemini', conversation(['gemini-given-1', 'gemini-given-2']));
    const contents = body['contents'] as { parts: Record<string, { id?: string }>[] }[];
    expect(contents[1]?.parts[1]?.['functionCall']?.id).toBe('gemini-given-1');
    expect(contents[2]?.parts[0]?.['functionResponse']?.id).toBe('gemini-given-1');
  });

  it('round-trips what it streamed: the calls it reported come back with their signatures', async () => {
    const provider = providerFor('gemini', server);
    const ask = { role: 'user' as const, content: [{ type: 'text' as const, text: 'Read a' }] };
    await collect(provider.generate({ model: 'fake-large', tools: [], messages: [ask] })); // the turn beforeEach scripted
    server.script(
      { kind: 'reply', toolCalls: [{ name: 'files__read_text_file', argumentChunks: ['{"path": "a"}'] }] },
      { kind: 'reply', text: ['A.'] },
    );
    const first = await collect(provider.generate({ model: 'fake-large', tools: [], messages: [ask] }));
    const calls = first.events.flatMap((event) => (event.type === 'tool_call' ? [event.call] : []));
    expect(calls[0]?.providerMetadata).toEqual({ gemini: { thoughtSignature: FAKE_THOUGHT_SIGNATURE } });
    const result = {
      toolCallId: calls[0]?.id ?? '',
      toolName: 'files__read_text_file',
      content: [{ type: 'text' as const, text: 'A' }],
      isError: false,
    };
    const second = await collect(
      provider.generate({
        model: 'fake-large',
        tools: [],
        messages: [ask, { role: 'assistant', text: '', toolCalls: calls }, { role: 'tool', results: [result] }],
      }),
    );
    expect(second.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    const contents = (server.generations()[2]?.body as { contents: unknown[] }).contents;
    expect(contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'files__read_text_file', args: { path: 'a' } },
            thoughtSignature: FAKE_THOUGHT_SIGNATURE,
          },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'files__read_text_file', response: { output: 'A' } } }] },
    ]);
  });
});
