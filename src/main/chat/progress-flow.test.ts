import { afterEach, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../shared/messages';
import { startLoopHarness, type LoopHarness } from './testing/loop-harness';

/**
 * A long tool call through the whole loop (docs/user/mcp-servers.md#progress): the real server-everything reports
 * progress, the loop streams it on the call's record, and stopping the exchange cancels the call.
 */
let harness: LoopHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const LONG = 'everything__trigger-long-running-operation';

async function withEverything(): Promise<LoopHarness> {
  harness = await startLoopHarness('openai');
  harness.services.mcpServers.add('everything', { package: '@modelcontextprotocol/server-everything' });
  harness.services.approvals.policy.update({ servers: { everything: { autoApprove: true } } });
  await harness.services.mcp.whenSettled();
  const deadline = Date.now() + 20_000;
  while (!harness.services.mcp.findTool(LONG)?.available) {
    if (Date.now() > deadline) throw new Error('server-everything did not list its tools');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return harness;
}

const progressOf = (test: LoopHarness): ToolCallRecord[] =>
  test.streamed.flatMap((event) => (event.kind === 'tool-call' && event.call.progress ? [event.call] : []));

it('streams the server’s progress on the running call, and the stored call keeps none once it ended', async () => {
  const test = await withEverything();
  test.fake.script(
    { kind: 'reply', toolCalls: [{ name: LONG, argumentChunks: [JSON.stringify({ duration: 0.6, steps: 3 })] }] },
    { kind: 'reply', text: ['done'] },
  );
  expect((await test.say('run it')).status).toBe('idle');
  const updates = progressOf(test);
  expect(updates.length).toBeGreaterThanOrEqual(2);
  expect(updates.every((call) => call.status === 'running' && call.progress?.total === 3)).toBe(true);
  expect(updates.map((call) => call.progress?.progress)).toEqual([1, 2, 3].slice(0, updates.length));
  const [stored] = test.calls();
  expect(stored).toMatchObject({ status: 'success', toolName: 'trigger-long-running-operation' });
  expect(stored?.progress).toBeUndefined();
});

it('stopping the exchange cancels the running call (the server is told) and records it as cancelled', async () => {
  const test = await withEverything();
  test.fake.script(
    { kind: 'reply', toolCalls: [{ name: LONG, argumentChunks: [JSON.stringify({ duration: 30, steps: 60 })] }] },
    { kind: 'reply', text: ['never'] },
  );
  test.services.conversations.send(test.chatId, { role: 'user', text: 'run it' });
  const deadline = Date.now() + 20_000;
  while (progressOf(test).length === 0) {
    if (Date.now() > deadline) throw new Error('no progress arrived');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  test.services.conversations.stop(test.chatId);
  await test.services.conversations.settled(test.chatId);
  const [stored] = test.calls();
  expect(stored).toMatchObject({ status: 'cancelled' });
  expect(stored?.progress).toBeUndefined();
  expect(stored?.error).toMatch(/cancelled; the server was told to stop it/);
});
