// The fake server itself: its non-streaming JSON is what the official SDKs parse, it takes the key the ways
// the real APIs do, and it says clearly when a test forgot to script a turn.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer } from './fake-llm-server';
import type { FakeReply } from './fake-turns';

const KEY = 'sk-fake';
let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
});

const reply: FakeReply = {
  kind: 'reply',
  text: ['Two ', 'files.'],
  toolCalls: [{ id: 'call_1', name: 'files__read_text_file', argumentChunks: ['{"path":', ' "a.md"}'] }],
  usage: { input: 30, output: 9 },
};

describe('fake LLM server, non-streaming JSON', () => {
  it('answers OpenAI chat completions as the SDK expects', async () => {
    server.script(reply);
    const client = new OpenAI({ apiKey: KEY, baseURL: server.baseURL('openai'), maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'fake-large',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Two files.');
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'files__read_text_file', arguments: '{"path": "a.md"}' } },
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage?.prompt_tokens).toBe(30);
    expect(server.generations()[0]?.stream).toBe(false);
  });

  it('answers Anthropic messages as the SDK expects', async () => {
    server.script(reply);
    const client = new Anthropic({ apiKey: KEY, baseURL: server.baseURL('anthropic'), maxRetries: 0 });
    const message = await client.messages.create({
      model: 'fake-large',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([
      { type: 'text', text: 'Two files.' },
      { type: 'tool_use', id: 'call_1', name: 'files__read_text_file', input: { path: 'a.md' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.output_tokens).toBe(9);
  });

  it('answers Gemini generateContent as the SDK expects', async () => {
    server.script(reply);
    const client = new GoogleGenAI({
      vertexai: false,
      apiKey: KEY,
      httpOptions: { baseUrl: server.baseURL('gemini'), apiVersion: 'v1beta' },
    });
    const response = await client.models.generateContent({ model: 'fake-large', contents: 'Hi' });
    expect(response.candidates?.[0]?.content?.parts?.[0]).toEqual({ text: 'Two files.' });
    expect(response.functionCalls).toEqual([{ name: 'files__read_text_file', args: { path: 'a.md' } }]);
    expect(response.usageMetadata?.promptTokenCount).toBe(30);
    expect(server.generations()[0]).toMatchObject({
      path: '/v1beta/models/fake-large:generateContent',
      model: 'fake-large',
      stream: false,
    });
  });
});

describe('fake LLM server, keys and mistakes', () => {
  const post = (path: string, headers: Record<string, string>): Promise<Response> =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });

  it.each([
    ['Authorization: Bearer', '/v1/chat/completions', { authorization: `Bearer ${KEY}` }],
    ['x-api-key', '/v1/messages', { 'x-api-key': KEY }],
    ['x-goog-api-key', '/v1beta/models/m:generateContent', { 'x-goog-api-key': KEY }],
    ['?key=', `/v1beta/models/m:generateContent?key=${KEY}`, {}],
  ])('accepts the key as %s', async (_how, path, headers) => {
    server.script({ kind: 'reply', text: ['ok'] });
    const response = await post(path, headers);
    expect(response.status).toBe(200);
    expect(server.requests[0]?.apiKey).toBe(KEY);
  });

  it("refuses a missing key with each format's own error", async () => {
    const openai = await post('/v1/chat/completions', {});
    expect(openai.status).toBe(401);
    expect(await openai.json()).toMatchObject({ error: { code: 'invalid_api_key', type: 'invalid_request_error' } });
    const anthropic = await post('/v1/messages', {});
    expect(anthropic.status).toBe(401);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const gemini = await post('/v1beta/models/m:streamGenerateContent?alt=sse', {});
    expect(gemini.status).toBe(400);
    expect(await gemini.json()).toMatchObject({
      error: {
        status: 'INVALID_ARGUMENT',
        details: expect.arrayContaining([expect.objectContaining({ reason: 'API_KEY_INVALID' })]),
      },
    });
  });

  it('says when no turn was scripted, and when a path is unknown', async () => {
    const unscripted = await post('/v1/chat/completions', { authorization: `Bearer ${KEY}` });
    expect(unscripted.status).toBe(500);
    expect(await unscripted.text()).toContain('no scripted turn');
    const unknown = await post('/v2/whatever', {});
    expect(unknown.status).toBe(404);
  });

  it('sends a raw turn as it is', async () => {
    server.script({ kind: 'raw', status: 418, headers: { 'content-type': 'text/plain' }, body: 'teapot' });
    const response = await post('/v1/messages', { 'x-api-key': KEY });
    expect(response.status).toBe(418);
    expect(await response.text()).toBe('teapot');
  });
});
