import { describe, expect, it } from 'vitest';
import type { ChatApprovalMode, ChatGrant, ConsideredStep } from '../../../shared/approval';
import type { ToolDefinition } from '../../../shared/tool';
import type { CompiledPolicy } from './compiled-policy';
import { decide, type ChatApprovalState } from './decision-pipeline';
import { changedTool, grantOf, makeTool, policyOf } from '../testing/fixtures';

const CHAT = '11111111-1111-4111-8111-111111111111';
const OTHER_CHAT = '22222222-2222-4222-8222-222222222222';
const readFile = makeTool('Files', 'read_file', { annotations: { readOnlyHint: true } });
const writeFile = makeTool('Files', 'write_file', { annotations: { readOnlyHint: false, destructiveHint: true } });
/** 14:02 local time, whatever the machine's time zone. */
const AT_14_02 = new Date(2025, 0, 2, 14, 2).getTime();

const chat = (mode: ChatApprovalMode = 'use-tool-settings', grants: ChatGrant[] = []): ChatApprovalState => ({
  id: CHAT,
  mode,
  grants,
});

function run(
  policy: CompiledPolicy,
  tool: ToolDefinition,
  args: Record<string, unknown> = {},
  state: ChatApprovalState | undefined = chat(),
) {
  return decide({ call: { serverName: tool.serverName, toolName: tool.name, args }, tool, chat: state }, policy);
}

const ETC_RULE = {
  effect: 'deny',
  server: 'Files',
  tool: 'write_*',
  args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
} as const;

describe('the decision pipeline, step by step', () => {
  it('asks on a fresh install, saying that the global setting asks', () => {
    const decision = run(policyOf(), readFile);
    expect(decision).toEqual({
      outcome: 'ask',
      source: { kind: 'global-setting', setting: 'ask' },
      reason: 'Asked: your global setting is to ask before every tool call',
      definitionChanged: false,
    });
  });

  it("1. denies by the organisation's rule first, labelled as the organisation's", () => {
    const policy = policyOf(
      { rules: [{ id: 'mine', ...ETC_RULE }] },
      { rules: [{ id: 'no-etc', ...ETC_RULE, note: 'IT policy 7' }] },
    );
    expect(run(policy, writeFile, { path: '/etc/passwd' })).toEqual({
      outcome: 'deny',
      source: { kind: 'managed-deny-rule', ruleId: 'no-etc' },
      reason:
        "Denied by your organisation's policy, rule 'no-etc': Files write_* when /path matches /etc/** (IT policy 7)",
      definitionChanged: false,
    });
  });

  it('1. denies by your rule, named by its number in your list', () => {
    const policy = policyOf({
      rules: [
        { id: 'a', effect: 'allow', server: 'Files', tool: '*' },
        { id: 'b', effect: 'ask', server: 'Other', tool: '*' },
        { id: 'c', ...ETC_RULE },
      ],
    });
    const decision = run(policy, writeFile, { path: '/etc/hosts' });
    expect(decision.outcome).toBe('deny');
    expect(decision.source).toEqual({ kind: 'deny-rule', ruleId: 'c', ruleNumber: 3 });
    expect(decision.reason).toBe('Denied by your rule #3: Files write_* when /path matches /etc/**');
    // The argument condition matters: elsewhere the allow rule decides.
    expect(run(policy, writeFile, { path: '/home/me/notes' }).source).toEqual({
      kind: 'allow-rule',
      ruleId: 'a',
      ruleNumber: 1,
    });
  });

  it('2. allows everything when approvals are off', () => {
    expect(run(policyOf({ mode: 'never-ask' }), writeFile)).toEqual({
      outcome: 'allow',
      source: { kind: 'approvals-off', setting: 'never-ask' },
      reason: 'Approvals are off (never ask)',
      definitionChanged: false,
    });
  });

  it("2. ignores 'approvals off' when the organisation forbids it, and says so", () => {
    const policy = policyOf({ mode: 'never-ask' }, { disallowNeverAsk: true });
    const trace: ConsideredStep[] = [];
    const decision = decide(
      { call: { serverName: 'Files', toolName: 'write_file', args: {} }, tool: writeFile, chat: chat() },
      policy,
      trace,
    );
    expect(decision.outcome).toBe('ask');
    expect(decision.reason).toBe(
      "Asked: your organisation's policy does not allow turning approvals off, so 'never ask' is ignored",
    );
    expect(trace.find((step) => step.kind === 'approvals-off')).toEqual({
      step: 2,
      kind: 'approvals-off',
      result: 'ignored',
      detail: "Approvals are off in your settings, but your organisation's policy requires approvals: ignored.",
    });
  });

  it("4. allows a tool this chat allowed, with the time the person chose 'Allow for this chat'", () => {
    const decision = run(policyOf(), writeFile, {}, chat('use-tool-settings', [grantOf(CHAT, writeFile, AT_14_02)]));
    expect(decision).toEqual({
      outcome: 'allow',
      source: { kind: 'chat-grant', serverName: 'Files', toolName: 'write_file', grantedAt: AT_14_02 },
      reason: "Allowed for this chat (you chose 'Allow for this chat' at 14:02)",
      definitionChanged: false,
    });
    // The order (docs/dev/architecture.md, the decision pipeline): a chat set to 'Always ask' is an explicit ask (step 3),
    // which the grant (step 4) does not silence.
    expect(run(policyOf(), writeFile, {}, chat('always-ask', [grantOf(CHAT, writeFile, AT_14_02)]))).toEqual({
      outcome: 'ask',
      source: { kind: 'chat-mode', setting: 'always-ask' },
      reason: "Asked because this chat is set to 'Always ask'",
      definitionChanged: false,
      keepsAsking: "This tool will keep asking, even after 'Allow for this chat': this chat is set to 'Always ask'.",
    });
  });

  it('4. asks again when the tool changed since it was allowed, and says so', () => {
    const changed = changedTool(writeFile);
    const decision = run(policyOf(), changed, {}, chat('use-tool-settings', [grantOf(CHAT, writeFile, AT_14_02)]));
    expect(decision.outcome).toBe('ask');
    expect(decision.definitionChanged).toBe(true);
    expect(decision.reason).toBe('Asked because this tool changed since you allowed it for this chat at 14:02');
  });

  it("4. never uses another chat's grant, nor a grant without the tool's definition", () => {
    expect(run(policyOf(), writeFile, {}, chat('use-tool-settings', [grantOf(OTHER_CHAT, writeFile)])).outcome).toBe(
      'ask',
    );
    const unknownTool = decide(
      {
        call: { serverName: 'Files', toolName: 'write_file', args: {} },
        chat: chat('use-tool-settings', [grantOf(CHAT, writeFile)]),
      },
      policyOf(),
    );
    expect(unknownTool.outcome).toBe('ask');
  });

  it("5. allows in a chat set to 'Never ask', unless the organisation forbids it", () => {
    expect(run(policyOf(), writeFile, {}, chat('never-ask'))).toEqual({
      outcome: 'allow',
      source: { kind: 'chat-mode', setting: 'never-ask' },
      reason: "Allowed: this chat is set to 'Never ask'",
      definitionChanged: false,
    });
    const forbidden = run(policyOf({}, { disallowNeverAsk: true }), writeFile, {}, chat('never-ask'));
    expect(forbidden.outcome).toBe('ask');
    expect(forbidden.reason).toBe(
      "Asked: your organisation's policy does not allow turning approvals off, so 'never ask' is ignored",
    );
  });

  it("3. asks in a chat set to 'Always ask', even when rules and settings would allow", () => {
    const policy = policyOf({
      servers: { Files: { autoApprove: true } },
      rules: [{ id: 'r', effect: 'allow', server: '*', tool: '*' }],
    });
    expect(run(policy, readFile, {}, chat('always-ask'))).toEqual({
      outcome: 'ask',
      source: { kind: 'chat-mode', setting: 'always-ask' },
      reason: "Asked because this chat is set to 'Always ask'",
      definitionChanged: false,
      keepsAsking: "This tool will keep asking, even after 'Allow for this chat': this chat is set to 'Always ask'.",
    });
  });

  it('3, 6. ask rules beat allow rules, and both beat the tool and server settings', () => {
    const policy = policyOf({
      servers: { Files: { autoApprove: true } },
      tools: { Files: { write_file: 'auto-approve' } },
      rules: [
        { id: 'allow-all', effect: 'allow', server: 'Files', tool: '*' },
        { id: 'ask-writes', effect: 'ask', server: 'Files', tool: 'write_*', note: 'writes are worth a look' },
      ],
    });
    const decision = run(policy, writeFile);
    expect(decision.source).toEqual({ kind: 'ask-rule', ruleId: 'ask-writes', ruleNumber: 2 });
    expect(decision.reason).toBe('Asked because of your rule #2: Files write_* (writes are worth a look)');
    expect(run(policy, readFile)).toMatchObject({ outcome: 'allow', reason: 'Auto-approved by your rule #1: Files *' });
  });

  it('3, 7. the tool setting beats the server setting, which beats the global one', () => {
    const policy = policyOf(
      {
        mode: 'auto-approve-read-only-trusted',
        servers: { Files: { autoApprove: true } },
        tools: { Files: { read_file: 'always-ask' }, Other: { run: 'auto-approve' } },
      },
      undefined,
      ['Files'],
    );
    expect(run(policy, readFile)).toEqual({
      outcome: 'ask',
      source: { kind: 'tool-setting', serverName: 'Files', toolName: 'read_file', setting: 'always-ask' },
      reason: "Asked because of the tool setting 'Files.read_file' (always ask)",
      definitionChanged: false,
      keepsAsking:
        "This tool will keep asking, even after 'Allow for this chat': the tool setting 'Files.read_file' is 'Always ask'.",
    });
    expect(run(policy, writeFile)).toEqual({
      outcome: 'allow',
      source: { kind: 'server-setting', serverName: 'Files', setting: 'auto-approve' },
      reason: "Auto-approved: server setting 'Files' (auto-approve all its tools)",
      definitionChanged: false,
    });
    expect(run(policy, makeTool('Other', 'run'))).toMatchObject({
      outcome: 'allow',
      source: { kind: 'tool-setting', setting: 'auto-approve' },
      reason: "Auto-approved: tool setting 'Other.run'",
    });
  });

  it('8. auto-approves read-only tools only of trusted servers, only in that global mode', () => {
    const trusted = policyOf({ mode: 'auto-approve-read-only-trusted' }, undefined, ['Files']);
    expect(run(trusted, readFile)).toEqual({
      outcome: 'allow',
      source: { kind: 'trusted-read-only', serverName: 'Files', toolName: 'read_file' },
      reason: "Auto-approved: 'read_file' says it is read-only, and you trust the annotations of 'Files'",
      definitionChanged: false,
    });
    expect(run(trusted, writeFile)).toMatchObject({
      outcome: 'ask',
      source: { kind: 'default' },
      reason: 'Asked: no rule or setting allows this tool without asking',
    });
    // An untrusted server's annotations never auto-approve.
    const untrusted = makeTool('Evil', 'steal', { annotations: { readOnlyHint: true } });
    expect(run(trusted, untrusted).outcome).toBe('ask');
    // Trusted, but the global mode is 'ask'.
    expect(run(policyOf({}, undefined, ['Files']), readFile).source.kind).toBe('global-setting');
    // The server's approval settings say nothing about trust: auto-approve alone does not make its hints count.
    expect(
      run(
        policyOf({ mode: 'auto-approve-read-only-trusted', servers: { Evil: { autoApprove: false } } }, undefined, [
          'Files',
        ]),
        untrusted,
      ).outcome,
    ).toBe('ask');
  });

  it("3. an explicit ask is never silenced by a chat grant, a 'Never ask' chat, an allow rule or auto-approve; the card is told why", () => {
    const grant = grantOf(CHAT, writeFile, AT_14_02);
    const everythingAllows = {
      servers: { Files: { autoApprove: true } },
      rules: [{ id: 'allow-all', effect: 'allow', server: '*', tool: '*' }],
    };
    // The tool set to 'Always ask', with a grant for exactly this definition, in a 'Never ask' chat.
    const toolAsks = policyOf({ ...everythingAllows, tools: { Files: { write_file: 'always-ask' } } });
    expect(run(toolAsks, writeFile, {}, chat('never-ask', [grant]))).toEqual({
      outcome: 'ask',
      source: { kind: 'tool-setting', serverName: 'Files', toolName: 'write_file', setting: 'always-ask' },
      reason: "Asked because of the tool setting 'Files.write_file' (always ask)",
      definitionChanged: false,
      keepsAsking:
        "This tool will keep asking, even after 'Allow for this chat': the tool setting 'Files.write_file' is 'Always ask'.",
    });
    // An ask rule, the same way; it is named by its number and its words.
    const ruleAsks = policyOf({
      ...everythingAllows,
      rules: [...everythingAllows.rules, { id: 'look', effect: 'ask', server: 'Files', tool: 'write_*' }],
    });
    expect(run(ruleAsks, writeFile, {}, chat('never-ask', [grant]))).toMatchObject({
      outcome: 'ask',
      source: { kind: 'ask-rule', ruleId: 'look', ruleNumber: 2 },
      keepsAsking:
        "This tool will keep asking, even after 'Allow for this chat': your rule #2 asks every time (Files write_*).",
    });
    // A tool setting to ask beats its server's auto-approve, and the server's auto-approve alone is no explicit ask.
    expect(run(policyOf(everythingAllows), writeFile, {}, chat('use-tool-settings', [grant])).source.kind).toBe(
      'chat-grant',
    );
  });

  it('2, 3. approvals off stands above an explicit ask, unless the organisation forbids it', () => {
    const policy = { mode: 'never-ask', tools: { Files: { write_file: 'always-ask' } } };
    expect(run(policyOf(policy), writeFile, {}, chat('always-ask')).source.kind).toBe('approvals-off');
    expect(run(policyOf(policy, { disallowNeverAsk: true }), writeFile, {}, chat('always-ask')).source).toEqual({
      kind: 'tool-setting',
      serverName: 'Files',
      toolName: 'write_file',
      setting: 'always-ask',
    });
  });

  it('3. a stale grant beside an explicit ask: the explicit ask is the reason, and the change is still shown', () => {
    const changed = changedTool(writeFile);
    const decision = run(
      policyOf({ tools: { Files: { write_file: 'always-ask' } } }),
      changed,
      {},
      chat('use-tool-settings', [grantOf(CHAT, writeFile, AT_14_02)]),
    );
    expect(decision).toMatchObject({
      outcome: 'ask',
      reason: "Asked because of the tool setting 'Files.write_file' (always ask)",
      definitionChanged: true,
    });
    expect(decision.keepsAsking).toBeDefined();
  });

  it('explain: the trace of an explicit ask says which setting asked, and where a grant would have stood', () => {
    const trace: ConsideredStep[] = [];
    const decision = decide(
      {
        call: { serverName: 'Files', toolName: 'write_file', args: {} },
        tool: writeFile,
        chat: chat('never-ask', [grantOf(CHAT, writeFile)]),
      },
      policyOf({ tools: { Files: { write_file: 'always-ask' } } }),
      trace,
    );
    expect(trace.map((step) => [step.step, step.kind, step.result])).toEqual([
      [1, 'deny-rule', 'passed'],
      [2, 'approvals-off', 'passed'],
      [3, 'ask-rule', 'passed'],
      [3, 'tool-setting', 'decided'],
    ]);
    expect(trace.at(-1)?.detail).toBe(decision.reason);
  });

  it('1. a matching deny rule beats approvals off, server bypass, chat grants and never-ask chats', () => {
    const policy = policyOf({
      mode: 'never-ask',
      servers: { Files: { autoApprove: true } },
      tools: { Files: { write_file: 'auto-approve' } },
      rules: [
        { id: 'allow', effect: 'allow', server: '*', tool: '*' },
        { id: 'deny', ...ETC_RULE },
      ],
    });
    const decision = run(policy, writeFile, { path: '/etc/shadow' }, chat('never-ask', [grantOf(CHAT, writeFile)]));
    expect(decision.outcome).toBe('deny');
    expect(decision.source.kind).toBe('deny-rule');
  });
});

describe('argument conditions', () => {
  const denyPolicy = (matcher: object) =>
    policyOf({ rules: [{ id: 'd', effect: 'deny', server: '*', tool: '*', args: [matcher] }] });
  const allowPolicy = (matcher: object) =>
    policyOf({ rules: [{ id: 'a', effect: 'allow', server: '*', tool: '*', args: [matcher] }] });

  it('matches globs path-like: ** spans folders and dot files, * does not cross /', () => {
    const policy = denyPolicy({ pointer: '/path', match: 'glob', value: '/etc/**' });
    expect(run(policy, writeFile, { path: '/etc/ssh/.hidden/key' }).outcome).toBe('deny');
    expect(run(policy, writeFile, { path: '/etcetera' }).outcome).toBe('ask');
    const star = denyPolicy({ pointer: '/path', match: 'glob', value: '/tmp/*' });
    expect(run(star, writeFile, { path: '/tmp/a' }).outcome).toBe('deny');
    expect(run(star, writeFile, { path: '/tmp/a/b' }).outcome).toBe('ask');
  });

  it('deny rules see through .. in paths; allow rules do not let .. escape', () => {
    const deny = denyPolicy({ pointer: '/path', match: 'glob', value: '/etc/**' });
    expect(run(deny, writeFile, { path: '/tmp/../etc/passwd' }).outcome).toBe('deny');
    expect(run(deny, writeFile, { path: '//etc/passwd' }).outcome).toBe('deny');
    const allow = allowPolicy({ pointer: '/path', match: 'glob', value: '/home/me/**' });
    expect(run(allow, writeFile, { path: '/home/me/notes.txt' }).outcome).toBe('allow');
    expect(run(allow, writeFile, { path: '/home/me/../../etc/passwd' }).outcome).toBe('ask');
    expect(run(allow, writeFile, { path: '/home/me/./x/../y' }).outcome).toBe('ask');
  });

  it('deny rules see every spelling of a path: /proc root aliases, .. out of the working folder, file URLs, whitespace, backslashes', () => {
    const deny = denyPolicy({ pointer: '/path', match: 'glob', value: '/etc/**' });
    const regexDeny = denyPolicy({ pointer: '/path', match: 'regex', value: '^/etc/' });
    for (const spelling of [
      '/proc/self/root/etc/passwd',
      '/proc/1/root/etc/passwd',
      '/proc/thread-self/root/etc/passwd',
      '/proc/self/task/7/root/etc/passwd',
      '/proc/self/root/proc/self/root/etc/passwd',
      '/proc/self/cwd/../../../etc/passwd',
      '../../etc/passwd',
      './../../../../etc/passwd',
      'file:///etc/passwd',
      'FILE://localhost/etc/passwd',
      'file:///etc/pass%77d',
      'file:///%65tc/passwd',
      ' /etc/passwd',
      '/etc/passwd\n',
      '\t//etc//./passwd',
      '/tmp/../etc/passwd',
    ]) {
      expect([spelling, run(deny, writeFile, { path: spelling }).outcome]).toEqual([spelling, 'deny']);
      expect([spelling, run(regexDeny, writeFile, { path: spelling }).outcome]).toEqual([spelling, 'deny']);
    }
    // Windows: backslashes and the drive letter's case.
    const windows = denyPolicy({ pointer: '/path', match: 'glob', value: 'C:/Windows/**' });
    for (const spelling of [
      'C:\\Windows\\System32\\x.dll',
      'c:/Windows/System32',
      'file:///C:/Windows/System32',
      'c:\\Windows\\..\\Windows\\x',
    ]) {
      expect([spelling, run(windows, writeFile, { path: spelling }).outcome]).toEqual([spelling, 'deny']);
    }
    // Not a spelling of /etc: other hosts' file URLs, other schemes, plain words.
    for (const other of [
      'file://evil.test/etc/passwd',
      'https://example.com/etc/passwd',
      'etc/passwd',
      '/proc/self/environ',
      '/home/me/etc/passwd',
    ]) {
      expect([other, run(deny, writeFile, { path: other }).outcome]).toEqual([other, 'ask']);
    }
  });

  it('allow rules match a path only when every spelling of it does', () => {
    const allow = allowPolicy({ pointer: '/path', match: 'glob', value: '/home/me/**' });
    expect(run(allow, writeFile, { path: '/home/me/a.txt' }).outcome).toBe('allow');
    for (const spelling of [
      '/home/me/../../proc/self/root/etc/passwd',
      ' /home/me/a.txt',
      '/home/me/../../etc/passwd',
      'file:///home/me/a.txt',
    ]) {
      expect([spelling, run(allow, writeFile, { path: spelling }).outcome]).toEqual([spelling, 'ask']);
    }
    const relative = allowPolicy({ pointer: '/path', match: 'glob', value: 'notes/**' });
    expect(run(relative, writeFile, { path: 'notes/a.md' }).outcome).toBe('allow');
    expect(run(relative, writeFile, { path: 'notes/../../etc/passwd' }).outcome).toBe('ask');
    // A URL allow rule sees the URL as written: its host is not a path.
    const url = allowPolicy({ pointer: '/url', match: 'regex', value: '^https://example\\.com(?:[/?#]|$)' });
    expect(run(url, writeFile, { url: 'https://example.com//docs/./a' }).outcome).toBe('allow');
  });

  it('tests the elements of an array: any for deny, all for allow', () => {
    const deny = denyPolicy({ pointer: '/paths', match: 'glob', value: '/etc/**' });
    expect(run(deny, writeFile, { paths: ['/home/a', '/etc/passwd'] }).outcome).toBe('deny');
    const allow = allowPolicy({ pointer: '/paths', match: 'glob', value: '/home/**' });
    expect(run(allow, writeFile, { paths: ['/home/a', '/home/b'] }).outcome).toBe('allow');
    expect(run(allow, writeFile, { paths: ['/home/a', '/etc/passwd'] }).outcome).toBe('ask');
    expect(run(allow, writeFile, { paths: [] }).outcome).toBe('ask');
  });

  it('matches regexes anywhere in the value, and numbers by their text', () => {
    const policy = denyPolicy({ pointer: '/command', match: 'regex', value: '\\brm\\s+-rf\\b' });
    expect(run(policy, writeFile, { command: 'cd / && rm -rf x' }).outcome).toBe('deny');
    expect(run(policy, writeFile, { command: 'echo hi' }).outcome).toBe('ask');
    const port = denyPolicy({ pointer: '/port', match: 'regex', value: '^22$' });
    expect(run(port, writeFile, { port: 22 }).outcome).toBe('deny');
  });

  it('compares equals by JSON value and type', () => {
    const policy = denyPolicy({ pointer: '/options/force', match: 'equals', value: true });
    expect(run(policy, writeFile, { options: { force: true } }).outcome).toBe('deny');
    expect(run(policy, writeFile, { options: { force: 'true' } }).outcome).toBe('ask');
    expect(run(policy, writeFile, { options: {} }).outcome).toBe('ask');
  });

  it('follows RFC 6901 escapes and array indexes, and never the prototype', () => {
    const slash = denyPolicy({ pointer: '/a~1b/0/c~0d', match: 'equals', value: 1 });
    expect(run(slash, writeFile, { 'a/b': [{ 'c~d': 1 }] }).outcome).toBe('deny');
    const proto = denyPolicy({ pointer: '/constructor/name', match: 'equals', value: 'Object' });
    expect(run(proto, writeFile, {}).outcome).toBe('ask');
  });

  it('needs every condition of a rule to hold', () => {
    const policy = policyOf({
      rules: [
        {
          id: 'both',
          effect: 'deny',
          server: '*',
          tool: '*',
          args: [
            { pointer: '/path', match: 'glob', value: '/etc/**' },
            { pointer: '/mode', match: 'equals', value: 'write' },
          ],
        },
      ],
    });
    expect(run(policy, writeFile, { path: '/etc/x', mode: 'write' }).outcome).toBe('deny');
    expect(run(policy, writeFile, { path: '/etc/x', mode: 'read' }).outcome).toBe('ask');
  });
});

describe('explain', () => {
  it('lists every step it looked at, in order, ending with the one that decided', () => {
    const policy = policyOf({ mode: 'auto-approve-read-only-trusted' }, { rules: [] }, ['Files']);
    const trace: ConsideredStep[] = [];
    const decision = decide(
      { call: { serverName: 'Files', toolName: 'read_file', args: {} }, tool: readFile, chat: chat() },
      policy,
      trace,
    );
    expect(decision.source.kind).toBe('trusted-read-only');
    expect(trace.map((step) => [step.step, step.kind, step.result])).toEqual([
      [1, 'managed-deny-rule', 'passed'],
      [1, 'deny-rule', 'passed'],
      [2, 'approvals-off', 'passed'],
      [3, 'ask-rule', 'passed'],
      [3, 'tool-setting', 'passed'],
      [3, 'chat-mode', 'passed'],
      [4, 'chat-grant', 'passed'],
      [5, 'chat-mode', 'passed'],
      [6, 'allow-rule', 'passed'],
      [7, 'tool-setting', 'passed'],
      [7, 'server-setting', 'passed'],
      [8, 'trusted-read-only', 'decided'],
    ]);
    expect(trace.at(-1)?.detail).toBe(decision.reason);
  });

  it('says why a stale grant and an untrusted server did not count', () => {
    const trace: ConsideredStep[] = [];
    const changed = changedTool(writeFile);
    decide(
      {
        call: { serverName: 'Files', toolName: 'write_file', args: {} },
        tool: changed,
        chat: chat('use-tool-settings', [grantOf(CHAT, writeFile, AT_14_02)]),
      },
      policyOf({ mode: 'auto-approve-read-only-trusted' }),
      trace,
    );
    expect(trace.find((step) => step.kind === 'chat-grant')?.detail).toBe(
      'You allowed Files.write_file for this chat at 14:02, but the tool changed since: it is asked about again.',
    );
    expect(trace.find((step) => step.kind === 'trusted-read-only')?.detail).toBe(
      "You have not marked the server 'Files' trusted, so its read-only hints do not count.",
    );
  });
});
