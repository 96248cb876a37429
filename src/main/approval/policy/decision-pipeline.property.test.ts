import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ApprovalPolicySchema,
  ManagedPolicySchema,
  type ApprovalPolicy,
  type ChatApprovalMode,
  type ChatGrant,
  type ConsideredStep,
  type ManagedPolicy,
  type PolicyDecision,
} from '../../../shared/approval';
import type { ToolDefinition } from '../../../shared/tool';
import { compilePolicy } from './compiled-policy';
import { decide, type ChatApprovalState } from './decision-pipeline';
import { compileRule } from './rule-compiler';
import { makeTool } from '../testing/fixtures';
import { everyCombination, expectedDecision, type PrecedenceFactors } from './testing/precedence-table';

const CHAT = '11111111-1111-4111-8111-111111111111';
const OTHER_CHAT = '22222222-2222-4222-8222-222222222222';
const SERVERS = ['Files', 'Shell', 'Web'] as const;
const TOOLS = ['read_file', 'write_file', 'run', 'fetch'] as const;
const RUNS = { numRuns: 400 };

const serverGlob = fc.constantFrom('*', 'Files', 'Shell', 'Web', 'F*', '{Files,Web}');
const toolGlob = fc.constantFrom('*', 'read_*', 'write_*', 'run', 'fetch', '*_file');
const matcher = fc.oneof(
  fc.record({
    pointer: fc.constant('/path'),
    match: fc.constant('glob' as const),
    value: fc.constantFrom('/etc/**', '/home/**', '/tmp/*'),
  }),
  fc.record({
    pointer: fc.constant('/path'),
    match: fc.constant('regex' as const),
    value: fc.constantFrom('^/etc', 'secret', '\\.env$'),
  }),
  fc.record({
    pointer: fc.constant('/mode'),
    match: fc.constant('equals' as const),
    value: fc.constantFrom<string | boolean>('fast', 'slow', true),
  }),
  // The whole arguments listed (an Insights suggestion's rule), or one argument's values.
  fc.record({
    pointer: fc.constantFrom('', '/path'),
    match: fc.constant('one-of' as const),
    value: fc.constantFrom('[{"path":"/tmp/x","mode":"fast"}]', '["/home/me/a","/tmp/x"]', '[{"path":"/etc/passwd"}]'),
  }),
);
const ruleBody = fc.record({
  server: serverGlob,
  tool: toolGlob,
  args: fc.option(fc.array(matcher, { maxLength: 2 }), { nil: undefined }),
});
const effect = fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const);

const policyArbitrary: fc.Arbitrary<ApprovalPolicy> = fc
  .record({
    mode: fc.constantFrom('ask' as const, 'auto-approve-read-only-trusted' as const, 'never-ask' as const),
    servers: fc.dictionary(fc.constantFrom(...SERVERS), fc.record({ autoApprove: fc.boolean() }), { maxKeys: 3 }),
    tools: fc.dictionary(
      fc.constantFrom(...SERVERS),
      fc.dictionary(
        fc.constantFrom(...TOOLS),
        fc.constantFrom('auto-approve' as const, 'always-ask' as const, 'inherit' as const),
        { maxKeys: 3 },
      ),
      { maxKeys: 3 },
    ),
    rules: fc.array(fc.tuple(effect, ruleBody), { maxLength: 10 }),
  })
  .map(({ rules, ...rest }) =>
    ApprovalPolicySchema.parse({
      ...rest,
      rules: rules.map(([ruleEffect, body], index) => ({
        id: `u${index}`,
        effect: ruleEffect,
        ...stripUndefined(body),
      })),
    }),
  );

const managedArbitrary: fc.Arbitrary<ManagedPolicy | null> = fc.option(
  fc
    .record({ rules: fc.array(ruleBody, { maxLength: 3 }), disallowNeverAsk: fc.boolean() })
    .map(({ rules, disallowNeverAsk }) =>
      ManagedPolicySchema.parse({
        disallowNeverAsk,
        rules: rules.map((body, index) => ({ id: `m${index}`, effect: 'deny', ...stripUndefined(body) })),
      }),
    ),
  { nil: null },
);

/** Each tool exists in two versions (different definition hashes), with or without annotations. */
const toolArbitrary: fc.Arbitrary<ToolDefinition> = fc
  .record({
    server: fc.constantFrom(...SERVERS),
    name: fc.constantFrom(...TOOLS),
    version: fc.integer({ min: 0, max: 1 }),
    readOnly: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ server, name, version, readOnly }) => toolVersion(server, name, version, readOnly));

function toolVersion(server: string, name: string, version: number, readOnly?: boolean): ToolDefinition {
  return makeTool(server, name, {
    description: `v${version}`,
    ...(readOnly === undefined ? {} : { annotations: { readOnlyHint: readOnly } }),
  });
}

const argsArbitrary = fc.record(
  {
    path: fc.constantFrom('/etc/passwd', '/home/me/a', '/tmp/x', '/tmp/../etc/shadow', '/srv/.env', ''),
    mode: fc.constantFrom<string | boolean>('fast', 'slow', true, false),
  },
  { requiredKeys: [] },
);

const grantArbitrary: fc.Arbitrary<ChatGrant> = fc
  .record({
    chatId: fc.constantFrom(CHAT, OTHER_CHAT),
    server: fc.constantFrom(...SERVERS),
    name: fc.constantFrom(...TOOLS),
    version: fc.integer({ min: 0, max: 1 }),
    readOnly: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ chatId, server, name, version, readOnly }) => {
    const tool = toolVersion(server, name, version, readOnly);
    return { chatId, serverName: server, toolName: name, definitionHash: tool.definitionHash, grantedAt: 1_000 };
  });

const chatArbitrary: fc.Arbitrary<ChatApprovalState> = fc.record({
  id: fc.constant(CHAT),
  mode: fc.constantFrom<ChatApprovalMode>('use-tool-settings', 'always-ask', 'never-ask'),
  grants: fc.array(grantArbitrary, { maxLength: 6 }),
});

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

interface Scenario {
  policy: ApprovalPolicy;
  managed: ManagedPolicy | null;
  /** The servers marked trusted in the MCP settings. */
  trusted: string[];
  tool: ToolDefinition;
  args: Record<string, unknown>;
  chat: ChatApprovalState;
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  policy: policyArbitrary,
  managed: managedArbitrary,
  trusted: fc.subarray([...SERVERS]),
  tool: toolArbitrary,
  args: argsArbitrary,
  chat: chatArbitrary,
});

function decideScenario({ policy, managed, trusted, tool, args, chat }: Scenario): PolicyDecision {
  return decide(
    { call: { serverName: tool.serverName, toolName: tool.name, args }, tool, chat },
    compilePolicy(policy, managed, trusted),
  );
}

/** Straight from the rules, without the compiled policy's memo: does any deny rule match this call? */
function someDenyRuleMatches({ policy, managed, tool, args }: Scenario): boolean {
  const denyRules = [...(managed?.rules ?? []), ...policy.rules.filter((rule) => rule.effect === 'deny')];
  return denyRules.some((rule) => {
    const compiled = compileRule(rule, { managed: false });
    return compiled.matchesServer(tool.serverName) && compiled.matchesTool(tool.name) && compiled.matchesArgs(args);
  });
}

describe('precedence properties', () => {
  it('a matching deny rule always wins: over approvals off, server bypass, tool settings, allow rules, chat grants and never-ask chats', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const decision = decideScenario(input);
        if (someDenyRuleMatches(input)) {
          expect(decision.outcome).toBe('deny');
          expect(['managed-deny-rule', 'deny-rule']).toContain(decision.source.kind);
        } else {
          expect(decision.outcome).not.toBe('deny');
        }
      }),
      RUNS,
    );
  });

  it('the organisation wins over the user: its deny rules come first', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const decision = decideScenario(input);
        if (decision.source.kind === 'deny-rule') {
          const managedMatches = (input.managed?.rules ?? []).some((rule) => {
            const compiled = compileRule(rule, { managed: true });
            return (
              compiled.matchesServer(input.tool.serverName) &&
              compiled.matchesTool(input.tool.name) &&
              compiled.matchesArgs(input.args)
            );
          });
          expect(managedMatches).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it('never allows without an explicit allow source that is really there', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const decision = decideScenario(input);
        if (decision.outcome !== 'allow') return;
        const { policy, managed, trusted, tool, chat } = input;
        const neverAskAllowed = !(managed?.disallowNeverAsk ?? false);
        const source = decision.source;
        switch (source.kind) {
          case 'approvals-off':
            expect(policy.mode).toBe('never-ask');
            expect(neverAskAllowed).toBe(true);
            break;
          case 'chat-grant':
            expect(chat.grants).toContainEqual(
              expect.objectContaining({
                chatId: CHAT,
                serverName: tool.serverName,
                toolName: tool.name,
                definitionHash: tool.definitionHash,
              }),
            );
            break;
          case 'chat-mode':
            expect(chat.mode).toBe('never-ask');
            expect(neverAskAllowed).toBe(true);
            break;
          case 'allow-rule':
            expect(policy.rules.find((rule) => rule.id === source.ruleId)?.effect).toBe('allow');
            break;
          case 'tool-setting':
            expect(policy.tools[tool.serverName]?.[tool.name]).toBe('auto-approve');
            break;
          case 'server-setting':
            expect(policy.servers[tool.serverName]?.autoApprove).toBe(true);
            break;
          case 'trusted-read-only':
            expect(policy.mode).toBe('auto-approve-read-only-trusted');
            expect(trusted).toContain(tool.serverName);
            expect(tool.annotations?.readOnlyHint).toBe(true);
            break;
          default:
            throw new Error(`allowed by ${source.kind}, which is no allow source`);
        }
      }),
      RUNS,
    );
  });

  it('a grant never survives a definition change', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 0, max: 1 }), (input, grantedVersion) => {
        const { tool } = input;
        const grantedTool = toolVersion(tool.serverName, tool.name, grantedVersion, tool.annotations?.readOnlyHint);
        fc.pre(grantedTool.definitionHash !== tool.definitionHash);
        // Only grants for other definitions of this tool: none may allow it.
        const grants = [
          ...input.chat.grants.filter((grant) => grant.serverName !== tool.serverName || grant.toolName !== tool.name),
          {
            chatId: CHAT,
            serverName: tool.serverName,
            toolName: tool.name,
            definitionHash: grantedTool.definitionHash,
            grantedAt: 5,
          },
        ];
        const withStale = decideScenario({ ...input, chat: { ...input.chat, grants } });
        const without = decideScenario({ ...input, chat: { ...input.chat, grants: grants.slice(0, -1) } });
        expect(withStale.source.kind).not.toBe('chat-grant');
        expect(withStale.outcome).toBe(without.outcome);
        expect(withStale.source).toEqual(without.source);
        if (withStale.outcome === 'ask') expect(withStale.definitionChanged).toBe(true);
      }),
      RUNS,
    );
  });

  it("chats never see each other's grants", () => {
    fc.assert(
      fc.property(scenario, fc.array(grantArbitrary, { maxLength: 8 }), (input, foreign) => {
        const others = foreign.map((grant) => ({ ...grant, chatId: OTHER_CHAT }));
        const own = input.chat.grants.filter((grant) => grant.chatId === CHAT);
        const mixed = decideScenario({ ...input, chat: { ...input.chat, grants: [...others, ...input.chat.grants] } });
        const alone = decideScenario({ ...input, chat: { ...input.chat, grants: own } });
        expect(mixed).toEqual(alone);
      }),
      RUNS,
    );
  });

  it('asks for every tool on a fresh install, whatever its annotations and arguments', () => {
    fc.assert(
      fc.property(toolArbitrary, argsArbitrary, (tool, args) => {
        const decision = decide(
          {
            call: { serverName: tool.serverName, toolName: tool.name, args },
            tool,
            chat: { id: CHAT, mode: 'use-tool-settings', grants: [] },
          },
          compilePolicy(ApprovalPolicySchema.parse({}), null, []),
        );
        expect(decision.outcome).toBe('ask');
      }),
      RUNS,
    );
  });

  it("with 'disallow never-ask', neither approvals off nor a never-ask chat allows anything", () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const managed = ManagedPolicySchema.parse({ ...(input.managed ?? {}), disallowNeverAsk: true });
        const decision = decideScenario({ ...input, managed });
        expect(decision.source.kind).not.toBe('approvals-off');
        expect(decision.source.kind === 'chat-mode' && decision.outcome === 'allow').toBe(false);
      }),
      RUNS,
    );
  });

  it('decides the same from a memoised policy as from a freshly compiled one', () => {
    fc.assert(
      fc.property(scenario, fc.array(fc.tuple(toolArbitrary, argsArbitrary), { maxLength: 5 }), (input, warmup) => {
        const compiled = compilePolicy(input.policy, input.managed, input.trusted);
        for (const [tool, args] of warmup)
          decide(
            { call: { serverName: tool.serverName, toolName: tool.name, args }, tool, chat: input.chat },
            compiled,
          );
        const call = { serverName: input.tool.serverName, toolName: input.tool.name, args: input.args };
        expect(decide({ call, tool: input.tool, chat: input.chat }, compiled)).toEqual(decideScenario(input));
      }),
      RUNS,
    );
  });
});

// ── The precedence, for every combination of what a person can set (docs/dev/architecture.md, the decision pipeline) ─────────

/** What may surround the one call without changing its decision: other rules, other tools' settings, other chats' grants, rule order. */
interface Noise {
  /** Which of the globs that match `Files.write_file` each rule uses. */
  serverGlob: string;
  toolGlob: string;
  /** The rules that match carry an argument condition that holds. */
  matchingCondition: boolean;
  /** Rules that name the tool but whose argument condition fails, or name another tool. */
  decoys: Array<{ effect: 'allow' | 'ask' | 'deny'; kind: 'other-tool' | 'failing-condition' }>;
  /** A permutation key for the user's rules. */
  order: number[];
  managedEvenWithoutRules: boolean;
  otherSettings: boolean;
  foreignGrants: boolean;
  annotateFalse: boolean;
}

const NO_NOISE: Noise = {
  serverGlob: 'Files',
  toolGlob: 'write_file',
  matchingCondition: false,
  decoys: [],
  order: [],
  managedEvenWithoutRules: false,
  otherSettings: false,
  foreignGrants: false,
  annotateFalse: true,
};

const noiseArbitrary: fc.Arbitrary<Noise> = fc.record({
  serverGlob: fc.constantFrom('Files', '*', 'F*', '{Files,Web}'),
  toolGlob: fc.constantFrom('write_file', '*', 'write_*', '*_file'),
  matchingCondition: fc.boolean(),
  decoys: fc.array(
    fc.record({ effect: effect, kind: fc.constantFrom('other-tool' as const, 'failing-condition' as const) }),
    { maxLength: 6 },
  ),
  order: fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 12, maxLength: 12 }),
  managedEvenWithoutRules: fc.boolean(),
  otherSettings: fc.boolean(),
  foreignGrants: fc.boolean(),
  annotateFalse: fc.boolean(),
});

const factorsArbitrary: fc.Arbitrary<PrecedenceFactors> = fc.record({
  managedDeny: fc.boolean(),
  userDeny: fc.boolean(),
  globalMode: fc.constantFrom('ask' as const, 'auto-approve-read-only-trusted' as const, 'never-ask' as const),
  organisationForbidsNeverAsk: fc.boolean(),
  askRule: fc.boolean(),
  toolSetting: fc.constantFrom('inherit' as const, 'always-ask' as const, 'auto-approve' as const),
  serverAutoApprove: fc.boolean(),
  chatMode: fc.constantFrom<ChatApprovalMode>('use-tool-settings', 'always-ask', 'never-ask'),
  grant: fc.constantFrom('none' as const, 'valid' as const, 'stale' as const),
  allowRule: fc.boolean(),
  readOnlyHint: fc.boolean(),
  serverTrusted: fc.boolean(),
});

const CALL_ARGS = { path: '/home/me/notes.txt' };

interface Built {
  compiled: ReturnType<typeof compilePolicy>;
  tool: ToolDefinition;
  chat: ChatApprovalState;
}

/** The policy, tool and chat that a combination of factors describes, for `Files.write_file {path: /home/me/notes.txt}`. */
function build(factors: PrecedenceFactors, noise: Noise): Built {
  const annotations = factors.readOnlyHint
    ? { readOnlyHint: true }
    : noise.annotateFalse
      ? { readOnlyHint: false }
      : undefined;
  const tool = makeTool('Files', 'write_file', annotations ? { annotations } : {});
  const earlier = makeTool('Files', 'write_file', {
    description: 'an earlier definition',
    ...(annotations ? { annotations } : {}),
  });
  const holds = noise.matchingCondition
    ? { args: [{ pointer: '/path', match: 'glob' as const, value: '/home/**' }] }
    : {};
  const matching = (id: string, ruleEffect: 'allow' | 'ask' | 'deny'): ApprovalPolicy['rules'][number] => ({
    id,
    effect: ruleEffect,
    server: noise.serverGlob,
    tool: noise.toolGlob,
    ...holds,
  });
  const decoy = (id: string, { effect: ruleEffect, kind }: Noise['decoys'][number]): ApprovalPolicy['rules'][number] =>
    kind === 'other-tool'
      ? { id, effect: ruleEffect, server: '*', tool: 'read_file' }
      : {
          id,
          effect: ruleEffect,
          server: 'Files',
          tool: '*',
          args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
        };
  const rules = [
    ...(factors.userDeny ? [matching('user-deny', 'deny')] : []),
    ...(factors.askRule ? [matching('user-ask', 'ask')] : []),
    ...(factors.allowRule ? [matching('user-allow', 'allow')] : []),
    ...noise.decoys.map((item, index) => decoy(`decoy-${index}`, item)),
  ];
  const ordered = rules
    .map((rule, index) => ({ rule, key: noise.order[index] ?? index }))
    .sort((a, b) => a.key - b.key)
    .map(({ rule }) => rule);
  const policy = ApprovalPolicySchema.parse({
    mode: factors.globalMode,
    servers: {
      Files: { autoApprove: factors.serverAutoApprove },
      ...(noise.otherSettings ? { Shell: { autoApprove: true } } : {}),
    },
    tools: {
      Files: { write_file: factors.toolSetting, ...(noise.otherSettings ? { read_file: 'auto-approve' } : {}) },
      ...(noise.otherSettings ? { Shell: { write_file: 'auto-approve' } } : {}),
    },
    rules: ordered,
  });
  const needsManaged = factors.managedDeny || factors.organisationForbidsNeverAsk || noise.managedEvenWithoutRules;
  const managed = needsManaged
    ? ManagedPolicySchema.parse({
        disallowNeverAsk: factors.organisationForbidsNeverAsk,
        rules: [
          ...(factors.managedDeny
            ? [{ id: 'org-deny', server: noise.serverGlob, tool: noise.toolGlob, ...holds }]
            : []),
          {
            id: 'org-decoy',
            server: 'Files',
            tool: '*',
            args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
          },
        ],
      })
    : null;
  const grants: ChatGrant[] = [];
  if (noise.foreignGrants) {
    grants.push({
      chatId: OTHER_CHAT,
      serverName: 'Files',
      toolName: 'write_file',
      definitionHash: tool.definitionHash,
      grantedAt: 1,
    });
    grants.push({
      chatId: CHAT,
      serverName: 'Files',
      toolName: 'read_file',
      definitionHash: tool.definitionHash,
      grantedAt: 1,
    });
  }
  if (factors.grant !== 'none')
    grants.push({
      chatId: CHAT,
      serverName: 'Files',
      toolName: 'write_file',
      definitionHash: (factors.grant === 'valid' ? tool : earlier).definitionHash,
      grantedAt: 2,
    });
  const trusted = [...(factors.serverTrusted ? ['Files'] : []), ...(noise.otherSettings ? ['Shell'] : [])];
  return {
    compiled: compilePolicy(policy, managed, trusted),
    tool,
    chat: { id: CHAT, mode: factors.chatMode, grants },
  };
}

/** The pipeline's decision and trace agree with the table: outcome, source, step, `keepsAsking`, and what a stale grant adds. */
function expectAgreement(factors: PrecedenceFactors, noise: Noise): void {
  const { compiled, tool, chat } = build(factors, noise);
  const trace: ConsideredStep[] = [];
  const decision = decide(
    { call: { serverName: 'Files', toolName: 'write_file', args: CALL_ARGS }, tool, chat },
    compiled,
    trace,
  );
  const expected = expectedDecision(factors);
  const label = JSON.stringify(factors);
  expect(
    { outcome: decision.outcome, kind: decision.source.kind, keepsAsking: decision.keepsAsking !== undefined },
    label,
  ).toEqual({
    outcome: expected.outcome,
    kind: expected.kind,
    keepsAsking: expected.keepsAsking,
  });
  // explain's trace follows the same order: steps never go back, and the last one decided at the table's step.
  expect(trace.at(-1), label).toMatchObject({ step: expected.step, kind: expected.kind, result: 'decided' });
  expect(
    trace.slice(0, -1).every((step) => step.result !== 'decided'),
    label,
  ).toBe(true);
  expect(
    trace.every((step, index) => index === 0 || step.step >= (trace[index - 1]?.step ?? 0)),
    label,
  ).toBe(true);
  if (expected.kind === 'tool-setting' || expected.kind === 'chat-mode') {
    expect(decision.source.setting, label).toBe(
      expected.step === 3 ? 'always-ask' : expected.kind === 'tool-setting' ? 'auto-approve' : 'never-ask',
    );
  }
  const stale = factors.grant === 'stale' && expected.step >= 3;
  expect(decision.definitionChanged, label).toBe(stale);
  if (stale && expected.outcome === 'ask' && !expected.keepsAsking)
    expect(decision.reason, label).toMatch(/^Asked because this tool changed since you allowed it/);
  else expect(decision.reason, label).toBe(trace.at(-1)?.detail);
}

describe('the precedence table (docs/dev/architecture.md, the decision pipeline)', () => {
  it('decides every one of the 20,736 combinations as the table does', () => {
    let count = 0;
    for (const factors of everyCombination()) {
      expectAgreement(factors, NO_NOISE);
      count += 1;
    }
    expect(count).toBe(2 * 2 * 3 * 2 * 2 * 3 * 2 * 3 * 3 * 2 * 2 * 2);
  });

  it('agrees with the table whatever surrounds the call: rule order, globs, decoy rules, other settings, other chats', () => {
    fc.assert(
      fc.property(factorsArbitrary, noiseArbitrary, (factors, noise) => expectAgreement(factors, noise)),
      { numRuns: 2_000 },
    );
  });

  it('an explicit ask is silenced only by a deny rule or approvals off: never by a grant, a never-ask chat, an allow rule or auto-approve', () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const { policy, managed, tool, chat } = input;
        const explicitAsk =
          policy.rules.some((rule) => rule.effect === 'ask' && ruleMatches(rule, input)) ||
          policy.tools[tool.serverName]?.[tool.name] === 'always-ask' ||
          chat.mode === 'always-ask';
        fc.pre(explicitAsk);
        const decision = decideScenario(input);
        if (decision.outcome === 'allow') {
          expect(decision.source.kind).toBe('approvals-off');
          expect(policy.mode === 'never-ask' && !(managed?.disallowNeverAsk ?? false)).toBe(true);
        } else if (decision.outcome === 'ask') {
          expect(decision.keepsAsking).toBeDefined();
        }
      }),
      RUNS,
    );
  });

  it('a grant adds nothing to an explicit ask: with or without it, the same decision', () => {
    fc.assert(
      fc.property(factorsArbitrary, noiseArbitrary, (factors, noise) => {
        fc.pre(expectedDecision(factors).step === 3);
        const decideWith = (grant: PrecedenceFactors['grant']): PolicyDecision => {
          const { compiled, tool, chat } = build({ ...factors, grant }, noise);
          return decide(
            { call: { serverName: 'Files', toolName: 'write_file', args: CALL_ARGS }, tool, chat },
            compiled,
          );
        };
        expect(decideWith('valid')).toEqual(decideWith('none'));
      }),
      RUNS,
    );
  });
});

function ruleMatches(rule: ApprovalPolicy['rules'][number], { tool, args }: Scenario): boolean {
  const compiled = compileRule(rule, { managed: false });
  return compiled.matchesServer(tool.serverName) && compiled.matchesTool(tool.name) && compiled.matchesArgs(args);
}
