// providers.* through the dispatcher and the real services: what crosses to the renderer never carries a key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../shared/contract';
import { startFakeLlmServer, type FakeLlmServer } from '../llm/testing/fake-llm-server';
import { createServices, type Services } from '../services';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

const KEY = 'sk-proj-SECRET-0123456789abcdef';

let dir: string;
let server: FakeLlmServer;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-providers-contract-'));
  server = await startFakeLlmServer({ apiKey: KEY });
});
afterEach(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('providers.* over the contract', () => {
  let services: Services;
  beforeEach(() => {
    services = createServices({ dataDir: dir, host: 'cli', version: '0.0.0' });
  });
  afterEach(() => services.close());

  it('never returns or announces a key, in any output', async () => {
    const seen: { event: EventName; payload: unknown }[] = [];
    services.events.subscribe((event, payload) => seen.push({ event, payload }));
    const dispatch = createDispatcher(createHandlers(services), (error) => {
      throw error;
    });
    const outputs = [
      await dispatch('providers.add', {
        kind: 'openai',
        label: 'Fake',
        apiKey: `  ${KEY}  `,
        baseURL: server.baseURL('openai'),
      }),
      await dispatch('providers.list', {}),
      await dispatch('providers.update', { id: 'fake', apiKey: KEY, defaultModel: 'fake-large' }),
      await dispatch('providers.test', { id: 'fake' }),
      await dispatch('providers.models', { id: 'fake' }),
      await dispatch('providers.add', {
        kind: 'gemini',
        label: 'Wrong',
        apiKey: 'sk-wrong-key-xyz',
        baseURL: server.baseURL('gemini'),
      }),
      await dispatch('providers.test', { id: 'wrong' }),
      await dispatch('providers.remove', { id: 'wrong' }),
    ];
    expect(outputs.map((output) => output.ok)).toEqual([true, true, true, true, true, true, true, true]);
    expect(outputs[1]).toMatchObject({ value: { providers: [{ id: 'demo' }, { id: 'fake', hasApiKey: true }] } });
    expect(outputs[3]).toEqual({ ok: true, value: { ok: true, modelCount: 2 } });
    expect(outputs[6]).toMatchObject({ ok: true, value: { ok: false, error: { code: 'llm_bad_key' } } });
    // The key was trimmed before it was stored, and used.
    expect(services.secrets.get('llm.fake.apiKey')).toBe(KEY);
    const everything = JSON.stringify([outputs, seen]);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('sk-wrong-key-xyz');
    expect(seen.filter((entry) => entry.event === 'providers.onDidChange')).toHaveLength(4);
  });

  it('refuses an invalid input before it reaches the service', async () => {
    const dispatch = createDispatcher(createHandlers(services), () => {});
    expect(await dispatch('providers.add', { kind: 'mistral' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(await dispatch('providers.add', { kind: 'openai-compatible', baseURL: 'ftp://x' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('baseURL') },
    });
    expect(await dispatch('providers.update', { id: 'demo', apiKey: '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(await dispatch('providers.models', { id: 'Not An Id' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
  });
});
