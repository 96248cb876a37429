import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startLoopHarness, type LoopHarness } from './testing/loop-harness';

let harness: LoopHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

it('a fresh install: the Demo provider asks to write a file on the real Files server, the person allows once, one clean answer', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  // A new chat on a fresh install talks to the Demo provider.
  test.chatId = test.services.chats.create({ providerId: 'demo' }).id;
  expect(test.services.chats.get(test.chatId)).toMatchObject({ providerId: 'demo', model: 'demo' });

  const waiting = await test.say('write hello.txt: Hello from the demo');
  expect(waiting.status).toBe('waiting-approval');
  const [request] = test.services.approvals.chats.pending(test.chatId);
  expect(request?.request).toMatchObject({
    serverName: 'Files',
    toolName: 'write_file',
    args: { path: 'hello.txt', content: 'Hello from the demo' },
  });
  expect(request?.request.decision.reason).toMatch(/ask/i);
  expect(fs.existsSync(path.join(test.sandbox, 'hello.txt'))).toBe(false);

  const done = await test.decide([
    { toolCallId: request?.request.toolCallId as string, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
  ]);
  expect(done.status).toBe('idle');
  expect(fs.readFileSync(path.join(test.sandbox, 'hello.txt'), 'utf8')).toBe('Hello from the demo');
  const messages = test.messages();
  expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'approval', 'assistant']);
  const final = messages.at(-1);
  expect(final?.role === 'assistant' && final.reply.turns.at(-1)?.message).toMatch(/write_file/);
  expect(test.audit().map((entry) => entry.decision ?? entry.outcome)).toEqual(['allow_once', 'success']);
});
