// chat.* through the dispatcher and the real services: the tool loop's contract as every front end sees it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '../../shared/messages';
import { createServices, type Services } from '../services';
import { createDispatcher } from './dispatcher';
import { createHandlers } from './handlers';

let dir: string;
let services: Services;
let dispatch: ReturnType<typeof createDispatcher>;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-chat-contract-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0', managedPolicyFile: null });
  dispatch = createDispatcher(createHandlers(services), (error) => {
    throw error;
  });
});
afterEach(async () => {
  await services.conversations.dispose();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('chat.* over the contract', () => {
  it('creates a chat on the first provider, talks to it, and pages through the messages', async () => {
    const created = await dispatch('chat.create', {});
    expect(created).toMatchObject({ ok: true, value: { providerId: 'demo', model: 'demo', systemPrompt: null } });
    const chatId = (created as { value: { id: string } }).value.id;
    const streamed: ChatStreamEvent[] = [];
    services.events.subscribe((event, payload) => {
      if (event === 'chat.onDidStream') streamed.push(payload as ChatStreamEvent);
    });
    const sent = await dispatch('chat.send', { chatId, message: { role: 'user', text: '  help  ' } });
    expect(sent).toMatchObject({ ok: true, value: { message: { role: 'user', text: 'help', seq: 1 } } });
    await services.conversations.settled(chatId);
    const page = await dispatch('chat.messages', { chatId, limit: 1 });
    expect(page).toMatchObject({
      ok: true,
      value: { hasMore: true, activity: { status: 'idle' }, messages: [{ role: 'assistant', seq: 2 }] },
    });
    const older = await dispatch('chat.messages', { chatId, beforeSeq: 2 });
    expect(older).toMatchObject({ ok: true, value: { hasMore: false, messages: [{ role: 'user', seq: 1 }] } });
    expect(streamed.some((event) => event.kind === 'text')).toBe(true);
    expect(streamed.at(-1)).toEqual({ kind: 'activity', chatId, activity: { status: 'idle', exchangeId: null } });
    expect((await dispatch('chat.get', { id: chatId })) as unknown).toMatchObject({ value: { title: 'help' } });
  });

  it('refuses bad messages with clear errors and stores nothing', async () => {
    const { id: chatId } = services.chats.create();
    expect(await dispatch('chat.send', { chatId, message: { role: 'user', text: '   ' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(await dispatch('chat.send', { chatId, message: { role: 'assistant', text: 'x' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    const approval = await dispatch('chat.send', {
      chatId,
      message: {
        role: 'approval',
        toolCallApprovals: [{ toolCallId: 'nope', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' }],
      },
    });
    expect(approval).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/nothing to approve/) },
    });
    expect(await dispatch('chat.stop', { chatId })).toEqual({ ok: true, value: { stopped: false } });
    expect(await dispatch('chat.messages', { chatId })).toMatchObject({ ok: true, value: { messages: [] } });
  });

  it('configures provider, model and system prompt; refuses an unknown provider', async () => {
    const { id } = services.chats.create();
    expect(await dispatch('chat.configure', { id, systemPrompt: 'Be brief.' })).toMatchObject({
      ok: true,
      value: { systemPrompt: 'Be brief.', providerId: 'demo' },
    });
    expect(await dispatch('chat.configure', { id, systemPrompt: null })).toMatchObject({
      ok: true,
      value: { systemPrompt: null },
    });
    expect(await dispatch('chat.configure', { id, providerId: 'nobody' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(services.chats.get(id).providerId).toBe('demo');
  });
});
