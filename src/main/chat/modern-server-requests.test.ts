// A 2026-07-28 server's input_required (docs/dev/protocol-2026.md) goes through the one approval engine exactly as a
// 2025-11-25 server's requests do (docs/user/server-requests.md): the SDK v2 client as AI Workbench sets it up hands
// the embedded sampling and elicitation to the server-request flow, where they wait in the one pending store for the
// person's decision, are audited, and only then answer the retried tool call. Real policy and audit log (SQLite),
// a real 2026-07-28 server built from the SDK v2's server packages; the model is the recording fake.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GenerateEvent, GenerateRequest, LlmProvider } from '../llm/provider';
import { connectModernHttp, modernSession, type ModernConnection } from '../mcp/modern-client';
import { loadSdkTypes } from '../mcp/sdk-types';
import { LenientCallToolResultSchema } from '../mcp/tool-result';
import { startModernServer, type ModernFixture } from '../mcp/test-fixtures/modern-server';
import { createServices, type Services } from '../services';
import { createServerRequests, type ServerRequests } from './server-request-flow';

const SERVER = 'Modern';
let dir: string;
let services: Services;
let requests: ServerRequests;
let generated: GenerateRequest[];
let chatId: string;
let fixture: ModernFixture;
let connection: ModernConnection | undefined;

const provider: LlmProvider = {
  kind: 'demo',
  async *generate(request): AsyncGenerator<GenerateEvent> {
    generated.push(request);
    yield { type: 'text', delta: 'a summary' };
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 2 } };
    yield { type: 'finish', reason: 'stop' };
  },
  listModels: async () => [],
};

beforeAll(async () => {
  await loadSdkTypes();
});
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-modern-requests-'));
  services = createServices({ dataDir: dir, host: 'cli', version: '0.0.0', managedPolicyFile: null });
  generated = [];
  requests = createServerRequests({
    audit: services.audit,
    waits: services.approvals.pending.serverRequests,
    policy: () => services.approvals.policy.compiled(),
    modelFor: () => ({ providerId: 'demo', model: 'demo' }),
    provider: () => provider,
  });
  chatId = services.chats.create({}).id;
  fixture = await startModernServer();
  connection = await connectModernHttp(fixture.url, {
    clientVersion: '0.0.0-test',
    timeoutMs: 10_000,
    serverRequests: { handler: requests, serverName: SERVER, chatOf: () => chatId },
    roots: () => [{ uri: 'file:///work/project', name: 'project' }],
  });
});
afterEach(async () => {
  await connection?.close();
  await fixture.close();
  requests.dispose();
  await services.conversations.dispose();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The one request that waits for the person in this chat, once it is there. */
async function waiting(): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const [view] = requests.list(chatId);
    if (view) return view.id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('No server request came to wait for the person.');
}

/** Legs of each call the door let through (a further leg of a call passes it again: mcp-session.ts). */
let legs = 0;
const call = (name: string) =>
  connection &&
  modernSession(connection).request(
    { method: 'tools/call', params: { name, arguments: {} } },
    LenientCallToolResultSchema,
    { admitLeg: () => void legs++ } as object,
  );

describe('a 2026-07-28 server asks through input_required, and the person decides', () => {
  it('speaks 2026-07-28 with the server', () => {
    expect(connection?.era).toBe('modern');
  });

  it('an elicitation waits for the person and the tool call continues with their answer; a decline is passed on', async () => {
    const accepted = call('confirm');
    const id = await waiting();
    expect(requests.list(chatId)[0]).toMatchObject({ kind: 'elicitation', serverName: SERVER });
    requests.decide(id, { action: 'accept', content: { confirm: true } });
    await expect(accepted).resolves.toMatchObject({ content: [{ type: 'text', text: 'accept: {"confirm":true}' }] });

    const declined = call('confirm');
    requests.decide(await waiting(), { action: 'decline' });
    await expect(declined).resolves.toMatchObject({ content: [{ type: 'text', text: 'decline: null' }] });
    expect(legs).toBe(2);
  });

  it('sampling runs the model only after the person allowed it, and is audited', async () => {
    const summary = call('summarise');
    const id = await waiting();
    expect(generated).toHaveLength(0);
    requests.decide(id, { action: 'allow-once' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    requests.decide(id, { action: 'send' });
    await expect(summary).resolves.toMatchObject({ content: [{ type: 'text', text: 'model said: a summary' }] });
    expect(generated).toHaveLength(1);
    expect(services.audit.query({ kind: 'sampling' }).entries.length).toBeGreaterThan(0);
  });

  it('a denied sampling request never reaches the model, and the tool call fails', async () => {
    const summary = call('summarise');
    requests.decide(await waiting(), { action: 'deny' });
    await expect(summary).rejects.toThrow();
    expect(generated).toHaveLength(0);
  });

  it('roots are the folders AI Workbench gives the server', async () => {
    await expect(call('where')).resolves.toMatchObject({ content: [{ type: 'text', text: 'file:///work/project' }] });
  });
});
