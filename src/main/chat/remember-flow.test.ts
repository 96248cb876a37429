import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { callOf, startLoopHarness, type LoopHarness } from './testing/loop-harness';

/**
 * Remember from the card (docs/user/approvals.md "Remember from the card") through the real services,
 * SQLite, the Files server and a scripted model: the answer that remembers goes through the one approval round trip
 * (check → claim with its audit row → policy change → run after the deny re-check), the next call like it runs
 * without asking, `policy.explain` names what was remembered, and what a deny rule catches is never remembered.
 */
let harness: LoopHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

it('remembers calls like this one: the call runs now, the next one in the folder runs without asking, one outside still asks', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  const notes = path.join(test.sandbox, 'notes');
  fs.mkdirSync(notes);
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: path.join(notes, 'a.md'), content: '1' })] },
    { kind: 'reply', text: ['one'] },
    { kind: 'reply', toolCalls: [callOf('write_file', { path: path.join(notes, 'b.md'), content: '1' })] },
    { kind: 'reply', text: ['two'] },
    { kind: 'reply', toolCalls: [callOf('write_file', { path: path.join(test.sandbox, 'c.md'), content: '1' })] },
    { kind: 'reply', text: ['three'] },
  );

  expect((await test.say('write a')).status).toBe('waiting-approval');
  const [first] = test.services.approvals.chats.pending(test.chatId);
  const toolCallId = first?.request.toolCallId as string;
  const offers = test.services.approvals.chats.rememberOptions({ chatId: test.chatId, toolCallId });
  expect(offers.rule).toMatchObject({
    offered: true,
    args: [
      { pointer: '/path', match: 'glob', value: `${notes}/**` },
      { pointer: '/content', match: 'equals', value: '1' },
    ],
  });

  expect(
    (
      await test.decide([
        {
          toolCallId,
          decision: 'TOOL_CALL_DECISION_ALLOW_ONCE',
          remember: { kind: 'rule', id: 'remembered-notes', args: offers.rule.args },
        },
      ])
    ).status,
  ).toBe('idle');
  expect(fs.readFileSync(path.join(notes, 'a.md'), 'utf8')).toBe('1');
  expect(test.services.approvals.policy.view().policy.rules).toEqual([
    {
      id: 'remembered-notes',
      effect: 'allow',
      server: 'Files',
      tool: 'write_file',
      args: offers.rule.args,
      note: 'remembered from an approval card',
    },
  ]);

  // The next call in the folder runs without asking; explain names the rule.
  expect((await test.say('write b')).status).toBe('idle');
  expect(fs.readFileSync(path.join(notes, 'b.md'), 'utf8')).toBe('1');
  const explained = test.services.approvals.gate.explain({
    server: 'Files',
    tool: 'write_file',
    args: { path: path.join(notes, 'x.md'), content: '1' },
  });
  expect(explained).toMatchObject({ outcome: 'allow', source: { kind: 'allow-rule', ruleId: 'remembered-notes' } });
  expect(explained.reason).toMatch(/remembered from an approval card/);
  // The same folder with other content is not "like this".
  expect(
    test.services.approvals.gate.explain({
      server: 'Files',
      tool: 'write_file',
      args: { path: path.join(notes, 'x.md'), content: '2' },
    }).outcome,
  ).toBe('ask');

  // Outside it, the question comes back.
  expect((await test.say('write c')).status).toBe('waiting-approval');

  const decisions = test
    .audit()
    .filter((row) => row.kind === 'decision')
    .map((row) => [row.decision, row.actor, row.decidedBy]);
  expect(decisions[0]).toEqual([
    'allow_once',
    'user',
    expect.stringMatching(
      /^You chose 'Always allow calls like this' \(this call allowed once; policy change: A new allow rule/,
    ),
  ]);
  expect(decisions[1]).toEqual(['auto_allow', 'policy', expect.stringMatching(/your rule #1/)]);
});

it('never remembers what a deny rule catches, and a refused answer changes nothing (no row, no setting, the call still waits)', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  const target = path.join(test.sandbox, 'x.txt');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: target, content: '1' })] },
    { kind: 'reply', text: ['ok'] },
  );
  expect((await test.say('write')).status).toBe('waiting-approval');
  const [waiting] = test.services.approvals.chats.pending(test.chatId);
  const toolCallId = waiting?.request.toolCallId as string;
  // A deny rule arrives while the call waits (another window, the CLI).
  test.services.approvals.policy.update({
    rules: {
      add: [
        {
          id: 'no-x',
          effect: 'deny',
          server: 'Files',
          tool: '*',
          args: [{ pointer: '/path', match: 'glob', value: `${test.sandbox}/x.*` }],
        },
      ],
    },
  });
  const offers = test.services.approvals.chats.rememberOptions({ chatId: test.chatId, toolCallId });
  expect([offers.tool.offered, offers.rule.offered, offers.server.offered]).toEqual([false, false, false]);

  for (const remember of [{ kind: 'tool' }, { kind: 'server' }] as const) {
    expect(() =>
      test.services.conversations.send(test.chatId, {
        role: 'approval',
        toolCallApprovals: [{ toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', remember }],
      }),
    ).toThrow(/cannot be remembered: A deny rule catches this call/);
  }
  expect(test.services.approvals.policy.view().policy).toMatchObject({ tools: {}, servers: {} });
  expect(test.audit().filter((row) => row.kind === 'decision')).toEqual([]);
  expect(test.services.approvals.chats.pending(test.chatId)).toHaveLength(1);
  expect(fs.existsSync(target)).toBe(false);
});
