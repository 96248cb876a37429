import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { callOf, startLoopHarness, type LoopHarness } from './testing/loop-harness';

/**
 * Step 3 of the decision order (docs/dev/architecture.md "The decision pipeline") through the real services, SQLite,
 * the Files server and a scripted model: a tool set to "Always ask" is asked every time, even after "Allow for
 * this chat" and in a chat set to "Never ask"; the grant is recorded, inert while the setting stands.
 */
let harness: LoopHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const KEEPS_ASKING =
  "This tool will keep asking, even after 'Allow for this chat': the tool setting 'Files.write_file' is 'Always ask'.";

it("a tool set to 'Always ask' is still asked after 'Allow for this chat' and in a 'Never ask' chat; the grant counts once the setting is lifted", async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  const target = path.join(test.sandbox, 'always.txt');
  test.services.approvals.policy.update({ tools: { Files: { write_file: 'always-ask' } } });
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: target, content: '1' })] },
    { kind: 'reply', text: ['one'] },
    { kind: 'reply', toolCalls: [callOf('write_file', { path: target, content: '2' })] },
    { kind: 'reply', text: ['two'] },
    { kind: 'reply', toolCalls: [callOf('write_file', { path: target, content: '3' })] },
    { kind: 'reply', text: ['three'] },
  );

  // 1. Asked, and the request tells the card why "Allow for this chat" will not stop the questions.
  expect((await test.say('write 1')).status).toBe('waiting-approval');
  const [first] = test.services.approvals.chats.pending(test.chatId);
  expect(first?.request.decision).toMatchObject({
    outcome: 'ask',
    source: { kind: 'tool-setting', setting: 'always-ask' },
    keepsAsking: KEEPS_ASKING,
  });
  expect(
    (
      await test.decide([
        { toolCallId: first?.request.toolCallId as string, decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' },
      ])
    ).status,
  ).toBe('idle');
  expect(fs.readFileSync(target, 'utf8')).toBe('1');
  // The grant is recorded…
  expect(test.services.approvals.chats.grants(test.chatId)).toEqual([
    expect.objectContaining({ serverName: 'Files', toolName: 'write_file' }),
  ]);

  // 2. …but inert: with the grant, and with the chat set to "Never ask", the next call waits for a person again.
  test.services.approvals.chats.setMode(test.chatId, 'never-ask');
  expect((await test.say('write 2')).status).toBe('waiting-approval');
  const [second] = test.services.approvals.chats.pending(test.chatId);
  expect(second?.request.decision).toMatchObject({
    outcome: 'ask',
    source: { kind: 'tool-setting' },
    keepsAsking: KEEPS_ASKING,
  });
  expect(fs.readFileSync(target, 'utf8')).toBe('1');
  expect(
    (
      await test.decide([
        { toolCallId: second?.request.toolCallId as string, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
      ])
    ).status,
  ).toBe('idle');
  expect(fs.readFileSync(target, 'utf8')).toBe('2');

  // 3. Once the tool defers to its server again, the recorded grant allows without asking.
  test.services.approvals.chats.setMode(test.chatId, 'use-tool-settings');
  test.services.approvals.policy.update({ tools: { Files: { write_file: 'inherit' } } });
  expect((await test.say('write 3')).status).toBe('idle');
  expect(fs.readFileSync(target, 'utf8')).toBe('3');
  expect(test.calls()[2]?.decision).toMatchObject({ outcome: 'allow', actor: 'policy' });

  const decisions = test
    .audit()
    .filter((row) => row.kind === 'decision')
    .map((row) => `${row.decision}:${row.actor}`);
  expect(decisions).toEqual(['allow_session:user', 'allow_once:user', 'session_grant:policy']);
});
