import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DECISION_COUNT_NAMES, type AuditStats } from '../../../shared/audit-stats';
import { APP_CALL_PREFIX } from '../../../shared/mcp-apps';
import { compileRule } from '../policy/rule-compiler';
import { callOf, startLoopHarness, type LoopHarness } from '../../chat/testing/loop-harness';
import { conditionsFor } from './suggestions';

/**
 * Approval insights (docs/user/insights.md) over a log the real services wrote: the tool loop, the approval engine and
 * the Files server, driven by a scripted model. The figures are checked against what the test did, the suggestion to
 * stop asking is held to the calls it saw, and accepting it is an audited policy change that deny rules still beat.
 */
let harness: LoopHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const DAY = 86_400_000;
const period = (): { from: string; to: string } => ({
  from: new Date(Date.now() - 7 * DAY).toISOString(),
  to: new Date(Date.now() + 60_000).toISOString(),
});

async function allowOnce(test: LoopHarness, file: string): Promise<void> {
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: file, content: 'x' })] },
    { kind: 'reply', text: ['done'] },
  );
  expect((await test.say(`write ${file}`)).status).toBe('waiting-approval');
  const [waiting] = test.services.approvals.chats.pending(test.chatId);
  expect(
    (
      await test.decide([
        { toolCallId: waiting?.request.toolCallId as string, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
      ])
    ).status,
  ).toBe('idle');
}

/** Five writes allowed by the person, one directory denied, one listing allowed by a rule, one write stopped by a deny rule. */
async function buildLog(): Promise<LoopHarness> {
  const test = await startLoopHarness('openai');
  // A dot early in the path: the log redacts runs of 32 or more token characters that look random (redact.ts), and
  // the temporary folder's random name could make one of the sandbox path; a redacted value is never suggested.
  const notes = path.join(test.sandbox, 'n.d');
  fs.mkdirSync(notes);
  test.services.approvals.policy.update({
    rules: {
      add: [
        { id: 'list-ok', effect: 'allow', server: 'Files', tool: 'list_directory' },
        {
          id: 'no-secrets',
          effect: 'deny',
          server: 'Files',
          tool: 'write_file',
          args: [{ pointer: '/path', match: 'glob', value: '**/secret*' }],
        },
        { id: 'never-used', effect: 'allow', server: 'Files', tool: 'move_file' },
      ],
    },
  });
  for (const name of ['a', 'b', 'c', 'd', 'e']) await allowOnce(test, path.join(notes, `${name}.md`));
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('create_directory', { path: path.join(test.sandbox, 'tmp') })] },
    { kind: 'reply', text: ['ok'] },
  );
  expect((await test.say('mkdir')).status).toBe('waiting-approval');
  const [waiting] = test.services.approvals.chats.pending(test.chatId);
  await test.decide([{ toolCallId: waiting?.request.toolCallId as string, decision: 'TOOL_CALL_DECISION_DENY' }]);
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('list_directory', { path: test.sandbox })] },
    { kind: 'reply', text: ['listed'] },
  );
  expect((await test.say('list')).status).toBe('idle');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: path.join(test.sandbox, 'secret.txt'), content: 'x' })] },
    { kind: 'reply', text: ['no'] },
  );
  expect((await test.say('write secret')).status).toBe('idle');
  return test;
}

it('counts what was asked and how it was answered, by day, tool, server, rule and wait, from the log the services wrote', async () => {
  harness = await buildLog();
  const test = harness;
  const stats: AuditStats = test.services.auditInsights.stats(period());
  expect(stats.totals).toEqual({
    total: 8,
    asked: 6,
    allowedByYou: 5,
    allowedByPolicy: 1,
    deniedByYou: 1,
    deniedByPolicy: 1,
    timedOut: 0,
    cancelled: 0,
  });
  // Every bucket of the week is there (zeros included), and they add up to the totals.
  expect(stats.timeline.length).toBeGreaterThanOrEqual(8);
  for (const name of [...DECISION_COUNT_NAMES, 'asked', 'total'] as const) {
    expect(stats.timeline.reduce((sum, bucket) => sum + bucket[name], 0)).toBe(stats.totals[name]);
  }
  expect(stats.tools[0]).toMatchObject({
    serverName: 'Files',
    toolName: 'write_file',
    asked: 5,
    allowedByYou: 5,
    deniedByPolicy: 1,
  });
  expect(stats.tools.find((tool) => tool.toolName === 'create_directory')).toMatchObject({ asked: 1, deniedByYou: 1 });
  expect(stats.servers).toEqual([expect.objectContaining({ serverName: 'Files', total: 8, asked: 6 })]);
  // The deciders: the allow rule and the deny rule, named as the log names them and tied to today's rules.
  expect(stats.deciders).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        kind: 'rule',
        ruleId: 'list-ok',
        allowed: 1,
        denied: 0,
        label: expect.stringMatching(/^Auto-approved by your rule #1/),
      }),
      expect.objectContaining({
        kind: 'rule',
        ruleId: 'no-secrets',
        allowed: 0,
        denied: 1,
        label: expect.stringMatching(/^Denied by your rule #2/),
      }),
    ]),
  );
  expect(stats.rules.map((rule) => [rule.ruleId, rule.decided])).toEqual([
    ['list-ok', 1],
    ['no-secrets', 1],
    ['never-used', 0],
  ]);
  // Each of the six asked calls waited in the pending store: its wait is measured.
  expect(stats.waiting).toMatchObject({ measured: 6, timedOut: 0, medianBucket: expect.any(String) });
  expect(stats.waiting.histogram.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(6);
  expect(stats.headSequence).toBe(test.services.audit.head().sequence);

  // Filters: one tool, another kind, by hour.
  expect(test.services.auditInsights.stats({ ...period(), toolName: 'create_directory' }).totals).toMatchObject({
    total: 1,
    deniedByYou: 1,
  });
  expect(test.services.auditInsights.stats({ ...period(), kind: 'sampling' }).totals.total).toBe(0);
  expect(test.services.auditInsights.stats({ ...period(), chatId: test.chatId }).totals.total).toBe(8);
  const hourly = test.services.auditInsights.stats({
    from: new Date(Date.now() - 3 * 3_600_000).toISOString(),
    to: new Date(Date.now() + 60_000).toISOString(),
    bucket: 'hour',
    utcOffsetMinutes: 90,
  });
  expect(hourly.timeline.length).toBeGreaterThanOrEqual(3);
  expect(hourly.timeline.reduce((sum, bucket) => sum + bucket.total, 0)).toBe(8);
  expect(hourly.timeline.at(-1)?.label).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}h$/);
  // A period before anything happened.
  expect(
    test.services.auditInsights.stats({ from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' }).totals.total,
  ).toBe(0);
});

it("counts the calls of an MCP App's view as their own kind, apart from the model's tool calls", async () => {
  harness = await buildLog();
  const test = harness;
  // As the app-call flow records them (docs/user/mcp-apps.md): decision rows whose call id starts with `app:`.
  for (const [index, decision, actor] of [
    [1, 'allow_once', 'user'],
    [2, 'auto_deny', 'policy'],
  ] as const)
    test.services.audit.recordDecision({
      chatId: test.chatId,
      toolCallId: `${APP_CALL_PREFIX}view-${index}`,
      serverName: 'Files',
      toolName: 'list_directory',
      decision,
      actor,
      decidedBy: `${actor === 'user' ? 'Allowed once' : 'Denied by your rule #2'} (requested by the app of Files, not by the model)`,
      args: { path: '.' },
    });
  // A view's other requests and what its frame refused are rows of the log, not tool calls: Insights leaves them out
  // (docs/user/insights.md#filters). Written as app-calls.ts writes them.
  for (const [index, toolName, decidedBy] of [
    [3, 'csp', "refused in the view's frame"],
    [4, 'ui/open-link', "refused in the view's frame"],
    [5, 'ui/open-link', 'only http(s) links may be opened'],
    [6, 'resources/read', 'the resource is not one of its server'],
  ] as const)
    test.services.audit.recordDecision({
      chatId: test.chatId,
      toolCallId: `${APP_CALL_PREFIX}view-${index}`,
      serverName: 'Files',
      toolName,
      requestedBy: 'app',
      decision: 'auto_deny',
      actor: 'system',
      decidedBy: `${decidedBy} (requested by the app of Files, not by the model)`,
      args: { detail: 'x' },
    });
  expect(test.services.auditInsights.stats({ ...period(), kind: 'app-tool-call' }).totals).toMatchObject({
    total: 2,
    allowedByYou: 1,
    deniedByPolicy: 1,
  });
  expect(test.services.auditInsights.stats({ ...period(), kind: 'tool' }).totals.total).toBe(8);
  expect(test.services.auditInsights.stats(period()).totals.total).toBe(10);
  // A tool whose name is that of a frame's refusal is still a tool call.
  test.services.audit.recordDecision({
    chatId: test.chatId,
    toolCallId: `${APP_CALL_PREFIX}view-7`,
    serverName: 'Files',
    toolName: 'csp',
    requestedBy: 'app',
    decision: 'auto_deny',
    actor: 'policy',
    decidedBy: 'Denied by your rule #2 (requested by the app of Files, not by the model)',
    args: {},
  });
  expect(test.services.auditInsights.stats({ ...period(), kind: 'app-tool-call' }).totals.total).toBe(3);
});

it('suggests allowing what the person always allowed, for exactly the calls seen; accepted, it is an audited policy change, and a deny rule still wins', async () => {
  harness = await buildLog();
  const test = harness;
  const notes = path.join(test.sandbox, 'n.d');
  const { suggestions } = test.services.auditInsights.suggestions(7);
  // create_directory was denied: no suggestion for it; write_file was allowed five times.
  const allow = suggestions.find((suggestion) => suggestion.kind === 'allow-tool');
  if (allow?.kind !== 'allow-tool') throw new Error('expected a suggestion to allow write_file');
  expect(suggestions.filter((suggestion) => suggestion.kind === 'allow-tool')).toHaveLength(1);
  expect(allow).toMatchObject({
    serverName: 'Files',
    toolName: 'write_file',
    text: expect.stringMatching(/^You allowed Files\.write_file 5 times in 7 days and never denied it/),
    evidence: { count: 5 },
  });
  // Never broader than the calls seen: the five calls match, a sixth file in the same folder, other content or one
  // more argument do not; the person is shown every call it allows.
  const rule = compileRule(
    { id: 'x', effect: 'allow', server: 'Files', tool: 'write_file', args: allow.args },
    { managed: false },
  );
  expect(allow.allows).toHaveLength(5);
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    expect(rule.matchesArgs({ path: path.join(notes, `${name}.md`), content: 'x' })).toBe(true);
    expect(allow.allows).toContain(JSON.stringify({ content: 'x', path: path.join(notes, `${name}.md`) }));
  }
  expect(rule.matchesArgs({ path: path.join(notes, 'a.md'), content: 'y' })).toBe(false);
  expect(rule.matchesArgs({ path: path.join(notes, 'f.md'), content: 'x' })).toBe(false);
  expect(rule.matchesArgs({ path: `${path.join(notes, 'a.md')}x`, content: 'x' })).toBe(false);
  expect(rule.matchesArgs({ path: path.join(notes, 'a.md'), content: 'x', mode: 'append' })).toBe(false);
  expect(rule.matchesArgs({ path: [path.join(notes, 'a.md')], content: 'x' })).toBe(false);
  expect(suggestions).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'unused-rule', ruleId: 'never-used' })]),
  );

  const before = test.services.audit.head().sequence;
  const accepted = test.services.auditInsights.accept(allow.id, 7);
  expect(test.services.approvals.policy.view().policy.rules.at(-1)).toEqual({
    id: accepted.ruleId,
    effect: 'allow',
    server: 'Files',
    tool: 'write_file',
    args: allow.args,
    note: 'accepted from an Insights suggestion',
  });
  const policyRows = test.services.audit
    .query({ kind: 'policy', limit: 5 })
    .entries.filter((entry) => entry.sequence > before);
  expect(policyRows).toHaveLength(1);
  expect(policyRows[0]?.decidedBy).toContain(accepted.ruleId);
  // The prompt is gone for a call it saw, and still there for one it did not: another file, or the same file with
  // other content.
  fs.writeFileSync(path.join(notes, 'a.md'), 'before');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: path.join(notes, 'a.md'), content: 'x' })] },
    { kind: 'reply', text: ['ok'] },
  );
  expect((await test.say('again')).status).toBe('idle');
  expect(fs.readFileSync(path.join(notes, 'a.md'), 'utf8')).toBe('x');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: path.join(notes, 'a.md'), content: 'evil' })] },
    { kind: 'reply', text: ['ok'] },
  );
  expect((await test.say('other content')).status).toBe('waiting-approval');
  const [waiting] = test.services.approvals.chats.pending(test.chatId);
  await test.decide([{ toolCallId: waiting?.request.toolCallId as string, decision: 'TOOL_CALL_DECISION_DENY' }]);
  expect(fs.readFileSync(path.join(notes, 'a.md'), 'utf8')).toBe('x');
  test.fake.script(
    { kind: 'reply', toolCalls: [callOf('write_file', { path: path.join(notes, 'f.md'), content: 'x' })] },
    { kind: 'reply', text: ['ok'] },
  );
  expect((await test.say('new file')).status).toBe('waiting-approval');
  // Accepted once: the same suggestion is gone now the policy no longer asks about those calls.
  expect(() => test.services.auditInsights.accept(allow.id, 7)).toThrow(/No such suggestion now/);
});

it('refuses a suggestion a deny rule catches, and one that is not in the evidence', async () => {
  harness = await buildLog();
  const test = harness;
  const allow = test.services.auditInsights
    .suggestions(7)
    .suggestions.find((suggestion) => suggestion.kind === 'allow-tool');
  if (allow?.kind !== 'allow-tool') throw new Error('expected a suggestion');
  test.services.approvals.policy.update({
    rules: {
      add: [
        {
          id: 'no-notes',
          effect: 'deny',
          server: 'Files',
          tool: 'write_file',
          args: [{ pointer: '/path', match: 'glob', value: '**/n.d/a.md' }],
        },
      ],
    },
  });
  const rulesBefore = test.services.approvals.policy.view().policy.rules;
  expect(() => test.services.auditInsights.accept(allow.id, 7)).toThrow(/A deny rule catches this call/);
  expect(test.services.approvals.policy.view().policy.rules).toEqual(rulesBefore);
  expect(() => test.services.auditInsights.accept('allow-tool:0000', 7)).toThrow(/No such suggestion now/);
  expect(() => test.services.auditInsights.accept('unused-rule:never-used', 7)).toThrow(
    /Only a suggestion to allow a tool/,
  );
});

it('makes no condition it cannot hold to the calls seen', () => {
  expect(conditionsFor([{ args: { path: '/a/x.md' } }, { args: { path: '/a/x.md' } }])).toEqual([
    { pointer: '', match: 'one-of', value: '[{"path":"/a/x.md"}]' },
  ]);
  expect(conditionsFor([{ args: { path: '/b/y.md' } }, { args: { path: '/a/x.md' } }])).toEqual([
    { pointer: '', match: 'one-of', value: '[{"path":"/a/x.md"},{"path":"/b/y.md"}]' },
  ]);
  // A call without arguments is a call like any other.
  expect(conditionsFor([{ args: {} }])).toEqual([{ pointer: '', match: 'one-of', value: '[{}]' }]);
  // A value that was redacted (anywhere inside), too many different calls, too long a list: no suggestion.
  expect(
    conditionsFor([{ args: { path: '/a', token: '[REDACTED]' } }, { args: { path: '/b', token: 'x' } }]),
  ).toBeNull();
  expect(conditionsFor([{ args: { path: '/a', options: { headers: ['[REDACTED]'] } } }])).toBeNull();
  expect(conditionsFor([{ args: { path: '/a/[REDACTED]' } }])).toBeNull();
  expect(conditionsFor(Array.from({ length: 20 }, (_, index) => ({ args: { path: `/a/${index}` } })))).toBeNull();
  expect(conditionsFor([{ args: { content: 'x'.repeat(5000) } }])).toBeNull();
});
