import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ApprovalPolicySchema,
  ManagedPolicySchema,
  type ApprovalPolicy,
  type ChatApprovalMode,
  type ChatGrant,
  type ManagedPolicy,
  type PolicyDecision,
} from '../../shared/approval';
import type { ToolDefinition } from '../../shared/tool';
import { compilePolicy } from './compiled-policy';
import { decide, type ChatApprovalState } from './decision-pipeline';
import { compileRule } from './rule-compiler';
import { makeTool } from './testing/fixtures';

const CHAT = '11111111-1111-4111-8111-111111111111';
const OTHER_CHAT = '22222222-2222-4222-8222-222222222222';
const SERVERS = ['Files', 'Shell', 'Web'] as const;
const TOOLS = ['read_file', 'write_file', 'run', 'fetch'] as const;
const RUNS = { numRuns: 400 };

const serverGlob = fc.constantFrom('*', 'Files', 'Shell', 'Web', 'F*', '{Files,Web}');
const toolGlob = fc.constantFrom('*', 'read_*', 'write_*', 'run', 'fetch', '*_file');
const matcher = fc.oneof(
  fc.record({ pointer: fc.constant('/path'), match: fc.constant('glob' as const), value: fc.constantFrom('/etc/**', '/home/**', '/tmp/*') }),
  fc.record({ pointer: fc.constant('/path'), match: fc.constant('regex' as const), value: fc.constantFrom('^/etc', 'secret', '\\.env$') }),
  fc.record({ pointer: fc.constant('/mode'), match: fc.constant('equals' as const), value: fc.constantFrom<string | boolean>('fast', 'slow', true) }),
);
const ruleBody = fc.record({ server: serverGlob, tool: toolGlob, args: fc.option(fc.array(matcher, { maxLength: 2 }), { nil: undefined }) });
const effect = fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const);

const policyArbitrary: fc.Arbitrary<ApprovalPolicy> = fc
  .record({
    mode: fc.constantFrom('ask' as const, 'auto-approve-read-only-trusted' as const, 'never-ask' as const),
    servers: fc.dictionary(fc.constantFrom(...SERVERS), fc.record({ autoApprove: fc.boolean() }), { maxKeys: 3 }),
    tools: fc.dictionary(fc.constantFrom(...SERVERS), fc.dictionary(fc.constantFrom(...TOOLS), fc.constantFrom('auto-approve' as const, 'always-ask' as const, 'inherit' as const), { maxKeys: 3 }), { maxKeys: 3 }),
    rules: fc.array(fc.tuple(effect, ruleBody), { maxLength: 10 }),
  })
  .map(({ rules, ...rest }) =>
    ApprovalPolicySchema.parse({ ...rest, rules: rules.map(([ruleEffect, body], index) => ({ id: `u${index}`, effect: ruleEffect, ...stripUndefined(body) })) }),
  );

const managedArbitrary: fc.Arbitrary<ManagedPolicy | null> = fc.option(
  fc
    .record({ rules: fc.array(ruleBody, { maxLength: 3 }), disallowNeverAsk: fc.boolean() })
    .map(({ rules, disallowNeverAsk }) =>
      ManagedPolicySchema.parse({ disallowNeverAsk, rules: rules.map((body, index) => ({ id: `m${index}`, effect: 'deny', ...stripUndefined(body) })) }),
    ),
  { nil: null },
);

/** Each tool exists in two versions (different definition hashes), with or without annotations. */
const toolArbitrary: fc.Arbitrary<ToolDefinition> = fc
  .record({ server: fc.constantFrom(...SERVERS), name: fc.constantFrom(...TOOLS), version: fc.integer({ min: 0, max: 1 }), readOnly: fc.option(fc.boolean(), { nil: undefined }) })
  .map(({ server, name, version, readOnly }) => toolVersion(server, name, version, readOnly));

function toolVersion(server: string, name: string, version: number, readOnly?: boolean): ToolDefinition {
  return makeTool(server, name, { description: `v${version}`, ...(readOnly === undefined ? {} : { annotations: { readOnlyHint: readOnly } }) });
}

const argsArbitrary = fc.record(
  { path: fc.constantFrom('/etc/passwd', '/home/me/a', '/tmp/x', '/tmp/../etc/shadow', '/srv/.env', ''), mode: fc.constantFrom<string | boolean>('fast', 'slow', true, false) },
  { requiredKeys: [] },
);

const grantArbitrary: fc.Arbitrary<ChatGrant> = fc
  .record({ chatId: fc.constantFrom(CHAT, OTHER_CHAT), server: fc.constantFrom(...SERVERS), name: fc.constantFrom(...TOOLS), version: fc.integer({ min: 0, max: 1 }), readOnly: fc.option(fc.boolean(), { nil: undefined }) })
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
  tool: toolArbitrary, args: argsArbitrary, chat: chatArbitrary });

function decideScenario({ policy, managed, trusted, tool, args, chat }: Scenario): PolicyDecision {
  return decide({ call: { serverName: tool.serverName, toolName: tool.name, args }, tool, chat }, compilePolicy(policy, managed, trusted));
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
            return compiled.matchesServer(input.tool.serverName) && compiled.matchesTool(input.tool.name) && compiled.matchesArgs(input.args);
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
            expect(chat.grants).toContainEqual(expect.objectContaining({ chatId: CHAT, serverName: tool.serverName, toolName: tool.name, definitionHash: tool.definitionHash }));
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
          { chatId: CHAT, serverName: tool.serverName, toolName: tool.name, definitionHash: grantedTool.definitionHash, grantedAt: 5 },
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
          { call: { serverName: tool.serverName, toolName: tool.name, args }, tool, chat: { id: CHAT, mode: 'use-tool-settings', grants: [] } },
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
        for (const [tool, args] of warmup) decide({ call: { serverName: tool.serverName, toolName: tool.name, args }, tool, chat: input.chat }, compiled);
        const call = { serverName: input.tool.serverName, toolName: input.tool.name, args: input.args };
        expect(decide({ call, tool: input.tool, chat: input.chat }, compiled)).toEqual(decideScenario(input));
      }),
      RUNS,
    );
  });
});
