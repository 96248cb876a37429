import { ApprovalPolicySchema, type ApprovalRule, type ChatGrant } from '../../src/shared/approval.ts';
import type { ToolDefinition } from '../../src/shared/tool.ts';
import { compilePolicy } from '../../src/main/approval/policy/compiled-policy.ts';
import { decide, type ChatApprovalState } from '../../src/main/approval/policy/decision-pipeline.ts';
import { percentile, type Benchmark } from './harness.ts';

const RULES = 1_000;
const SERVERS = 50;
const TOOLS = ['read_file', 'write_file', 'list_dir', 'run', 'fetch', 'search', 'tool_0', 'tool_1', 'tool_2', 'tool_3'];
const CALLS = 4_000;
const WARMUP = 20_000;
const SAMPLES = 200_000;
const CHAT_ID = '11111111-1111-4111-8111-111111111111';

/** A deterministic pseudo-random sequence, so every run measures the same mix. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const server = (index: number): string => `srv-${String(index).padStart(2, '0')}`;

/**
 * 1,000 rules shaped like a large organisation's: most name one server, some a family (`srv-1*`) or
 * all (`*`); tools by name, by prefix (`write_*`) or all; three in five with argument conditions
 * (path globs, command regexes, exact values).
 */
function makeRules(): ApprovalRule[] {
  return Array.from({ length: RULES }, (_, index): ApprovalRule => {
    const effect = (['deny', 'ask', 'allow'] as const)[index % 3] as ApprovalRule['effect'];
    const serverGlob = index % 20 === 0 ? '*' : index % 20 === 1 ? 'srv-1*' : server(index % SERVERS);
    const toolGlob = index % 7 === 0 ? 'write_*' : index % 7 === 1 ? '*' : (TOOLS[index % TOOLS.length] as string);
    const rule: ApprovalRule = { id: `r${index}`, effect, server: serverGlob, tool: toolGlob };
    switch (index % 5) {
      case 0:
        return { ...rule, args: [{ pointer: '/path', match: 'glob', value: `/data/${index % 97}/**` }] };
      case 1:
        return { ...rule, args: [{ pointer: '/command', match: 'regex', value: `^cmd${index % 89}\\b` }] };
      case 2:
        return {
          ...rule,
          args: [
            { pointer: '/options/mode', match: 'equals', value: `m${index % 83}` },
            { pointer: '/path', match: 'glob', value: '/srv/**' },
          ],
        };
      default:
        // Without conditions a rule on a literal pair decides every call of it; keep those rare.
        return index % 10 === 3
          ? rule
          : { ...rule, args: [{ pointer: '/path', match: 'glob', value: `/tmp/${index}/*` }] };
    }
  });
}

function makeTool(serverName: string, name: string, index: number): ToolDefinition {
  return {
    name,
    serverName,
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: name.startsWith('read') || name.startsWith('list') },
    definitionHash: index.toString(16).padStart(64, '0'),
  };
}

export const policyDecision: Benchmark = {
  name: 'policy-decision',
  description: `one decision of the approval pipeline with ${RULES} rules (argument conditions included), over a mix of ${CALLS} calls`,
  async run() {
    const next = random(42);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const settings = ApprovalPolicySchema.parse({
      mode: 'auto-approve-read-only-trusted',
      servers: Object.fromEntries(
        Array.from({ length: 10 }, (_, index) => [server(index * 5), { autoApprove: index % 3 === 0 }]),
      ),
      tools: { [server(7)]: { run: 'always-ask', fetch: 'auto-approve' } },
      rules: makeRules(),
    });
    const managed = {
      defaults: {},
      locked: {},
      disallowNeverAsk: false,
      rules: [
        {
          id: 'org',
          effect: 'deny' as const,
          server: '*',
          tool: 'run',
          args: [{ pointer: '/command', match: 'regex' as const, value: '\\brm\\s+-rf\\b' }],
        },
      ],
    };
    // Every server trusted (as its `mcpServers.<name>.trusted`), so step 7 is reached and counts.
    const trusted = Array.from({ length: 10 }, (_, index) => server(index * 5));
    const compileStart = process.hrtime.bigint();
    const policy = compilePolicy(settings, managed, trusted);
    const compileMs = Number(process.hrtime.bigint() - compileStart) / 1e6;
    const tools = new Map<string, ToolDefinition>();
    const toolOf = (serverName: string, name: string): ToolDefinition => {
      const key = `${serverName}/${name}`;
      let tool = tools.get(key);
      if (!tool) {
        tool = makeTool(serverName, name, tools.size);
        tools.set(key, tool);
      }
      return tool;
    };
    const grants: ChatGrant[] = Array.from({ length: 8 }, (_, index) => {
      const tool = toolOf(server(index * 3), 'write_file');
      return {
        chatId: CHAT_ID,
        serverName: tool.serverName,
        toolName: tool.name,
        definitionHash: tool.definitionHash,
        grantedAt: 0,
      };
    });
    const chat: ChatApprovalState = { id: CHAT_ID, mode: 'use-tool-settings', grants };
    const calls = Array.from({ length: CALLS }, () => {
      const tool = toolOf(server(Math.floor(next() * SERVERS)), pick(TOOLS));
      const args = {
        path: pick([
          `/data/${Math.floor(next() * 120)}/file.txt`,
          '/home/me/notes.md',
          '/srv/app/config.json',
          `/tmp/${Math.floor(next() * 1000)}/x`,
          '/etc/../etc/hosts',
        ]),
        command: pick([`cmd${Math.floor(next() * 100)} --flag`, 'ls -la', 'rm -rf /', 'echo hello']),
        options: { mode: `m${Math.floor(next() * 100)}`, force: next() < 0.5 },
      };
      return { call: { serverName: tool.serverName, toolName: tool.name, args }, tool, chat };
    });

    // Warm up the JIT and the per-pair candidate lists, as a running app would have.
    let sink = 0;
    for (let i = 0; i < WARMUP; i++) sink += decide(calls[i % CALLS] as (typeof calls)[number], policy).reason.length;
    const outcomes = { allow: 0, ask: 0, deny: 0 };
    const samples = new Float64Array(SAMPLES);
    for (let i = 0; i < SAMPLES; i++) {
      const input = calls[i % CALLS] as (typeof calls)[number];
      const start = process.hrtime.bigint();
      const decision = decide(input, policy);
      samples[i] = Number(process.hrtime.bigint() - start) / 1_000;
      outcomes[decision.outcome] += 1;
    }
    const all = Array.from(samples);
    const p50 = percentile(all, 50);
    const p99 = percentile(all, 99);
    if (sink === 0) throw new Error('the warm-up decided nothing');
    // The first decision for a (server, tool) pair after a policy change scans all the rules once.
    const cold = compilePolicy(settings, managed, trusted);
    const coldTimes = calls.slice(0, 200).map((input) => {
      const start = process.hrtime.bigint();
      decide(input, cold);
      return Number(process.hrtime.bigint() - start) / 1_000;
    });
    const details = {
      p50Us: p50,
      p99Us: p99,
      p999Us: percentile(all, 99.9),
      firstDecisionOfPairP50Us: percentile(coldTimes, 50),
      compileMs,
      samples: SAMPLES,
      rules: RULES,
      pairs: tools.size,
      ...outcomes,
    };
    return [
      { name: 'policy-decision-p50', value: p50, unit: 'µs', goal: { op: '<=', value: 10 }, details },
      { name: 'policy-decision-p99', value: p99, unit: 'µs', goal: { op: '<=', value: 50 }, details },
    ];
  },
};
