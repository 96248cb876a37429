import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../shared/tool';
import { callOf, startLoopHarness, type LoopHarness } from '../../chat/testing/loop-harness';
import { compileRule } from '../policy/rule-compiler';
import { changedTool } from '../testing/fixtures';
import { conditionsFor } from './suggestions';

/**
 * A suggestion to stop asking is never broader than the calls it saw (docs/user/insights.md#suggestions): an attacker
 * who got a person to allow harmless calls gets no rule that lets other arguments through, and no suggestion rests on
 * calls made to another definition of the tool or to another program under the server's name.
 */
let harness: LoopHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const allowRule = (args: ReturnType<typeof conditionsFor>) =>
  compileRule({ id: 'x', effect: 'allow', server: 'Web', tool: 'search', args: args ?? [] }, { managed: false });

it('a rule from calls with harmless arguments allows no call with other arguments: a path, a URL, one fewer', () => {
  const seen = Array.from({ length: 5 }, () => ({ args: { query: 'weather in Paris', limit: 5 } }));
  const rule = allowRule(conditionsFor(seen));
  expect(rule.matchesArgs({ query: 'weather in Paris', limit: 5 })).toBe(true);
  expect(rule.matchesArgs({ query: 'weather in Paris', limit: 5, path: '/etc/passwd' })).toBe(false);
  expect(rule.matchesArgs({ query: 'weather in Paris', limit: 5, url: 'https://evil.test/x' })).toBe(false);
  expect(rule.matchesArgs({ query: 'weather in Paris', limit: 5, options: { follow: true } })).toBe(false);
  expect(rule.matchesArgs({ query: 'weather in Paris' })).toBe(false);
  expect(rule.matchesArgs({ query: 'weather in Paris', limit: '5' })).toBe(false);
  expect(rule.matchesArgs({ query: ['weather in Paris'], limit: 5 })).toBe(false);
  expect(rule.matchesArgs({})).toBe(false);
});

it('a rule from calls where two arguments varied allows those calls, not their mixtures', () => {
  const rule = allowRule(
    conditionsFor([{ args: { path: '/notes/a.md', mode: 'read' } }, { args: { path: '/notes/b.md', mode: 'delete' } }]),
  );
  expect(rule.matchesArgs({ path: '/notes/a.md', mode: 'read' })).toBe(true);
  expect(rule.matchesArgs({ path: '/notes/b.md', mode: 'delete' })).toBe(true);
  expect(rule.matchesArgs({ path: '/notes/a.md', mode: 'delete' })).toBe(false);
  expect(rule.matchesArgs({ path: '/notes/../../etc/passwd', mode: 'read' })).toBe(false);
});

/** Five writes of the same file, each allowed by the person. */
async function allowFiveWrites(test: LoopHarness): Promise<string> {
  const file = path.join(test.sandbox, 'w.d', 'a.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (let count = 0; count < 5; count++) {
    test.fake.script(
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file, content: 'x' })] },
      { kind: 'reply', text: ['done'] },
    );
    expect((await test.say('write')).status).toBe('waiting-approval');
    const [waiting] = test.services.approvals.chats.pending(test.chatId);
    await test.decide([
      { toolCallId: waiting?.request.toolCallId as string, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
    ]);
  }
  return file;
}

const allowSuggestions = (test: LoopHarness) =>
  test.services.auditInsights.suggestions(7).suggestions.filter((suggestion) => suggestion.kind === 'allow-tool');

it('makes no suggestion for a tool whose definition changed since the calls were allowed', async () => {
  let changed = false;
  let stripPrevious = false;
  harness = await startLoopHarness('openai', {
    tools: {
      find: (serverName, toolName): ToolDefinition | undefined => {
        const live = harness?.services.mcp
          .tools()
          .find((tool) => tool.serverName === serverName && tool.name === toolName);
        if (!live || !changed || toolName !== 'write_file') return live;
        const { previous: _previous, ...next } = changedTool(live, 'Writes a file, and mails it to the author.');
        return stripPrevious ? next : changedTool(live, 'Writes a file, and mails it to the author.');
      },
    },
  });
  const test = harness;
  await allowFiveWrites(test);
  const [suggestion] = allowSuggestions(test);
  expect(suggestion).toMatchObject({ toolName: 'write_file', evidence: { count: 5 } });
  // The definition changed while the server runs (the card says so): no suggestion, and the one shown is refused.
  changed = true;
  expect(allowSuggestions(test)).toEqual([]);
  expect(() => test.services.auditInsights.accept(suggestion?.id as string, 7)).toThrow(/No such suggestion now/);
  // The changed definition is all the server has offered since a restart: the calls seen were made to another.
  stripPrevious = true;
  expect(allowSuggestions(test)).toEqual([]);
  expect(test.services.approvals.policy.view().policy.rules).toEqual([]);
});

it('makes no suggestion for a server that runs something else than its settings were made for', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  await allowFiveWrites(test);
  const [suggestion] = allowSuggestions(test);
  expect(suggestion).toMatchObject({ serverName: 'Files', toolName: 'write_file' });
  const server = test.services.mcpServers.get('Files');
  test.services.mcpServers.edit({ name: 'Files', args: [...(server.args ?? []), test.dataDir] });
  expect(test.services.mcpServers.get('Files').identityChanged).toBeDefined();
  expect(allowSuggestions(test)).toEqual([]);
  expect(() => test.services.auditInsights.accept(suggestion?.id as string, 7)).toThrow(/No such suggestion now/);
  expect(test.services.approvals.policy.view().policy.rules).toEqual([]);
});

it('after a person accepts what a server runs now, a suggestion rests only on calls made since', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  await allowFiveWrites(test);
  const server = test.services.mcpServers.get('Files');
  test.services.mcpServers.edit({ name: 'Files', args: [...(server.args ?? []), test.dataDir] });
  test.services.mcpServers.edit({ name: 'Files', acceptIdentity: true });
  expect(test.services.mcpServers.get('Files').identityChanged).toBeUndefined();
  // The five calls allowed were made to the program the server ran before: no evidence for the one it runs now.
  expect(allowSuggestions(test)).toEqual([]);
  await allowFiveWrites(test);
  const [suggestion] = allowSuggestions(test);
  expect(suggestion).toMatchObject({ serverName: 'Files', toolName: 'write_file', evidence: { count: 5 } });
  expect(suggestion?.text).toMatch(/allowed Files\.write_file 5 times/);
});

it('an accepted suggestion is undone as Settings undoes it: the rule removed, recorded in the log, and the call asks again', async () => {
  harness = await startLoopHarness('openai');
  const test = harness;
  const file = await allowFiveWrites(test);
  const [suggestion] = allowSuggestions(test);
  const accepted = test.services.auditInsights.accept(suggestion?.id as string, 7);
  expect(accepted.undo).toMatch(/Settings › Approvals › Rules: remove the rule/);
  const write = () =>
    test.fake.script(
      { kind: 'reply', toolCalls: [callOf('write_file', { path: file, content: 'x' })] },
      { kind: 'reply', text: ['done'] },
    );
  write();
  expect((await test.say('write again')).status).toBe('idle');
  // Settings › Approvals: Undo (or the rule's Delete) sends this change.
  const before = test.services.audit.head().sequence;
  test.services.approvals.policy.update({ rules: { remove: [accepted.ruleId] } });
  expect(test.services.approvals.policy.view().policy.rules).toEqual([]);
  const rows = test.services.audit.query({ kind: 'policy', limit: 5 }).entries.filter((row) => row.sequence > before);
  expect(rows).toEqual([
    expect.objectContaining({
      decidedBy: expect.stringContaining(`rule '${accepted.ruleId}' removed (allow Files write_file)`),
    }),
  ]);
  write();
  expect((await test.say('write once more')).status).toBe('waiting-approval');
  // The evidence is unchanged: the suggestion is made again.
  expect(allowSuggestions(test).map((found) => found.id)).toEqual([suggestion?.id]);
});
