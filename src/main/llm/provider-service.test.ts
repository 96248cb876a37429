import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../errors';
import { createEventHub } from '../event-hub';
import { openFileSecretStore, type SecretStore } from '../settings/secret-store';
import { openSettingsStore } from '../settings/settings-store';
import { apiKeySecretName, createProviderService, DEMO_LABEL, type ProviderService } from './provider-service';
import { refusedURL, startFakeLlmServer, type FakeLlmServer } from './testing/fake-llm-server';

const KEY = 'sk-proj-SECRET-0123456789abcdef';

let dir: string;
let server: FakeLlmServer;
let secrets: SecretStore;
let providers: ProviderService;
let announced: unknown[];

/** A service on the test's folder; a short connection-test limit only where a test waits for it to pass. */
function open(testTimeoutMs = 10_000): ProviderService {
  const events = createEventHub();
  events.subscribe((event, payload) => announced.push({ event, payload }));
  secrets = openFileSecretStore(path.join(dir, 'secrets.json'));
  return createProviderService({
    settings: openSettingsStore(path.join(dir, 'settings.json')),
    secrets,
    events,
    testTimeoutMs,
  });
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-providers-'));
  server = await startFakeLlmServer({ apiKey: KEY });
  announced = [];
  providers = open();
});
afterEach(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function settingsFile(): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>;
}

function expectError(run: () => unknown, code: string, message?: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WorkbenchError);
  expect((caught as WorkbenchError).code).toBe(code);
  if (message) expect((caught as WorkbenchError).message).toMatch(message);
}

describe('provider service', () => {
  it('starts with the Demo provider, labelled as not an AI model, and writes nothing', () => {
    expect(providers.list()).toEqual([
      {
        id: 'demo',
        kind: 'demo',
        label: 'Demo — not an AI model',
        defaultModel: 'demo',
        hasApiKey: false,
        apiKeyRequired: false,
      },
    ]);
    expect(fs.existsSync(path.join(dir, 'settings.json'))).toBe(false);
  });

  it('adds a provider: settings without the key, the key in the secret store, an announcement without it', () => {
    const added = providers.add({ kind: 'openai', apiKey: KEY, defaultModel: 'gpt-4o' });
    expect(added).toEqual({
      id: 'openai',
      kind: 'openai',
      label: 'OpenAI',
      defaultModel: 'gpt-4o',
      hasApiKey: true,
      apiKeyRequired: true,
    });
    expect(settingsFile()['providers']).toEqual([
      { id: 'demo', kind: 'demo', label: DEMO_LABEL, defaultModel: 'demo' },
      { id: 'openai', kind: 'openai', label: 'OpenAI', defaultModel: 'gpt-4o' },
    ]);
    expect(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')).not.toContain(KEY);
    expect(secrets.get(apiKeySecretName('openai'))).toBe(KEY);
    expect(apiKeySecretName('openai')).toBe('llm.openai.apiKey');
    expect(announced).toEqual([{ event: 'providers.onDidChange', payload: { providers: providers.list() } }]);
    expect(JSON.stringify(announced)).not.toContain(KEY);
    // A second service on the same files sees the same providers.
    expect(open().list()).toEqual(providers.list());
  });

  it('makes ids from labels, unique, and refuses a taken id', () => {
    expect(
      providers.add({ kind: 'openai-compatible', label: 'Ollama on the NAS', baseURL: 'http://nas:11434/v1/' }).id,
    ).toBe('ollama-on-the-nas');
    expect(
      providers.add({ kind: 'openai-compatible', label: 'Ollama on the NAS', baseURL: 'http://nas:11435/v1' }).id,
    ).toBe('ollama-on-the-nas-2');
    expect(providers.get('ollama-on-the-nas').baseURL).toBe('http://nas:11434/v1');
    expectError(() => providers.add({ kind: 'anthropic', id: 'demo' }), 'invalid_input', /exists already/);
  });

  it('refuses shapes that cannot work', () => {
    expectError(
      () => providers.add({ kind: 'openai-compatible', label: 'LM Studio' }),
      'invalid_input',
      /needs its base URL/,
    );
    expectError(() => providers.add({ kind: 'demo', apiKey: KEY }), 'invalid_input', /runs offline/);
    expectError(() => providers.update({ id: 'demo', label: 'GPT-7' }), 'invalid_input', /keeps its label/);
    const compatible = providers.add({ kind: 'openai-compatible', baseURL: 'http://localhost:1234/v1' });
    expectError(() => providers.update({ id: compatible.id, baseURL: null }), 'invalid_input', /needs its base URL/);
    expect(providers.add({ kind: 'demo', label: 'Smart AI' }).label).toBe(DEMO_LABEL);
  });

  it('updates fields, clears them with null, and sets or deletes the key', () => {
    providers.add({
      kind: 'anthropic',
      apiKey: KEY,
      baseURL: 'https://proxy.example/anthropic',
      defaultModel: 'claude-x',
    });
    const renamed = providers.update({
      id: 'anthropic',
      label: 'Claude at work',
      baseURL: null,
      defaultModel: 'claude-y',
    });
    expect(renamed).toEqual({
      id: 'anthropic',
      kind: 'anthropic',
      label: 'Claude at work',
      defaultModel: 'claude-y',
      hasApiKey: true,
      apiKeyRequired: true,
    });
    expect(providers.update({ id: 'anthropic', apiKey: null }).hasApiKey).toBe(false);
    expect(secrets.get(apiKeySecretName('anthropic'))).toBeUndefined();
    expect(providers.update({ id: 'anthropic', apiKey: 'sk-ant-new' }).hasApiKey).toBe(true);
    expect(secrets.get(apiKeySecretName('anthropic'))).toBe('sk-ant-new');
    expectError(() => providers.update({ id: 'nope', label: 'x' }), 'not_found');
  });

  it('removes a provider with its key', () => {
    const { id } = providers.add({ kind: 'gemini', apiKey: KEY });
    expect(id).toBe('google-gemini');
    expect(secrets.keys('llm.')).toEqual(['llm.google-gemini.apiKey']);
    providers.remove(id);
    expect(providers.list().map((provider) => provider.id)).toEqual(['demo']);
    expect(secrets.keys('llm.')).toEqual([]);
    expectError(() => providers.remove(id), 'not_found');
  });

  it('gives the tool loop an adapter, the same one until the configuration changes', () => {
    providers.add({ kind: 'openai', apiKey: KEY });
    const first = providers.provider('openai');
    expect(first.kind).toBe('openai');
    expect(providers.provider('openai')).toBe(first);
    providers.update({ id: 'openai', apiKey: 'sk-other' });
    expect(providers.provider('openai')).not.toBe(first);
    expect(providers.provider('demo').kind).toBe('demo');
    providers.update({ id: 'openai', apiKey: null });
    expectError(() => providers.provider('openai'), 'llm_bad_key', /No API key is set for OpenAI/);
    expectError(() => providers.provider('missing'), 'not_found');
  });

  it('tests the connection by fetching the model list, and reports what went wrong', async () => {
    providers.add({ kind: 'openai', label: 'Fake OpenAI', apiKey: KEY, baseURL: server.baseURL('openai') });
    providers.add({ kind: 'anthropic', label: 'Fake Anthropic', apiKey: KEY, baseURL: server.baseURL('anthropic') });
    providers.add({ kind: 'gemini', label: 'Fake Gemini', apiKey: 'wrong', baseURL: server.baseURL('gemini') });
    providers.add({ kind: 'openai-compatible', label: 'Gone', baseURL: `${await refusedURL()}/v1` });
    providers.add({ kind: 'openai', label: 'No key' });
    expect(await providers.test('fake-openai')).toEqual({ ok: true, modelCount: 2 });
    expect(await providers.test('fake-anthropic')).toEqual({ ok: true, modelCount: 2 });
    expect(await providers.test('fake-gemini')).toMatchObject({ ok: false, error: { code: 'llm_bad_key' } });
    expect(await providers.test('gone')).toMatchObject({
      ok: false,
      error: { code: 'llm_unreachable', message: expect.stringContaining('connection refused') },
    });
    const requests = server.requests.length;
    expect(await providers.test('no-key')).toMatchObject({
      ok: false,
      error: { code: 'llm_bad_key', message: expect.stringContaining('No API key is set') },
    });
    expect(server.requests.length).toBe(requests);
    expect(await providers.test('demo')).toEqual({ ok: true, modelCount: 1 });
    expect((await providers.models('fake-openai')).map((model) => model.id)).toEqual(['fake-large', 'fake-small']);
  });

  it('gives up testing a server that never answers', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const quick = open(200);
      quick.add({ kind: 'openai-compatible', label: 'Silent', baseURL: `http://127.0.0.1:${port}/v1` });
      expect(await quick.test('silent')).toMatchObject({
        ok: false,
        error: {
          code: 'llm_unreachable',
          message: 'Silent did not answer within 0.2 seconds. Check the address and that the server is running.',
        },
      });
    } finally {
      silent.close();
    }
  });
});

describe('probeLocal (the local servers the providers page offers)', () => {
  it('says a server on this machine answers, with its model count, before anything is added', async () => {
    const local = await startFakeLlmServer();
    try {
      const result = await providers.probeLocal({ baseURL: local.baseURL('openai'), label: 'Ollama' });
      expect(result.ok).toBe(true);
      expect(result.ok && result.modelCount).toBeGreaterThan(0);
      expect(providers.list().map((provider) => provider.kind)).not.toContain('openai-compatible');
      expect(local.requests.map((request) => request.path)).toEqual(['/v1/models']);
    } finally {
      await local.close();
    }
  });

  it('says clearly when nothing is listening', async () => {
    const url = new URL(await refusedURL());
    const result = await providers.probeLocal({ baseURL: `${url.origin}/v1`, label: 'Ollama' });
    expect(result).toEqual({
      ok: false,
      error: { code: 'llm_unreachable', message: `Nothing is listening on 127.0.0.1:${url.port} — is Ollama running?` },
    });
  });

  it('refuses an address that is not this machine, without connecting to it', async () => {
    await expect(providers.probeLocal({ baseURL: 'http://192.0.2.1:11434/v1' })).rejects.toThrow(
      /Only a server on this machine/,
    );
    await expect(providers.probeLocal({ baseURL: 'http://localhost.example.org:11434/v1' })).rejects.toThrow(
      /not localhost\.example\.org/,
    );
  });
});
