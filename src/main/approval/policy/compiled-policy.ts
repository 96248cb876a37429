import { neverAskAllowed } from '../../../shared/never-ask';
import type { ApprovalPolicy, ManagedPolicy, ServerApprovalSettings, ToolApprovalSetting } from '../../../shared/approval';
import { compileRule, ruleProblems, type CompiledRule, type RuleProblem } from './rule-compiler';

/** The rules whose server and tool globs match one (server, tool) pair, in list order, by step of the pipeline. */
export interface RuleCandidates {
  readonly managedDeny: readonly CompiledRule[];
  readonly deny: readonly CompiledRule[];
  readonly ask: readonly CompiledRule[];
  readonly allow: readonly CompiledRule[];
}

/**
 * A policy made ready for decisions, built once per change of the user's or the organisation's
 * policy. Immutable; the per-pair candidate lists are memoised, so a decision tests only the
 * arguments of the few rules that name its server and tool, however many rules there are.
 */
export interface CompiledPolicy {
  readonly policy: ApprovalPolicy;
  readonly managed: ManagedPolicy | null;
  /** False when the organisation's policy forbids "never ask" (global and per chat), or locked the global mode to another. */
  readonly neverAskAllowed: boolean;
  candidates(serverName: string, toolName: string): RuleCandidates;
  toolSetting(serverName: string, toolName: string): ToolApprovalSetting;
  serverSettings(serverName: string): ServerApprovalSettings | undefined;
  /** The user marked the server trusted (`mcpServers.<name>.trusted`): its read-only hints may count (step 7). */
  serverTrusted(serverName: string): boolean;
  /** The trusted servers this policy was compiled with, sorted. */
  readonly trustedServers: readonly string[];
}

/** How many (server, tool) pairs keep their candidate lists; past it the memo starts again. */
const CANDIDATE_MEMO_LIMIT = 4_096;

/** Every problem of every rule of a policy (user rules numbered from 1); empty when it can be compiled. */
export function policyProblems(policy: Pick<ApprovalPolicy, 'rules'>): RuleProblem[] {
  return policy.rules.flatMap((rule, index) => ruleProblems(rule, index + 1));
}

/**
 * `trustedServers` are the names of the servers whose `mcpServers.<name>.trusted` is set: the MCP
 * settings are the one place a server's trust is kept.
 */
export function compilePolicy(policy: ApprovalPolicy, managed: ManagedPolicy | null, trustedServers: Iterable<string>): CompiledPolicy {
  // The organisation's rules first: its deny rules, then its locked ask and allow rules, before the person's of each effect.
  const rules: CompiledRule[] = [
    ...(managed?.rules ?? []).map((rule) => compileRule(rule, { managed: true })),
    ...(managed?.locked.rules ?? []).map((rule) => compileRule(rule, { managed: true })),
    ...policy.rules.map((rule, index) => compileRule(rule, { managed: false, number: index + 1 })),
  ];
  // Own keys only, in Maps: a server called "__proto__" or "constructor" is just a name.
  const servers = new Map(Object.entries(policy.servers));
  const tools = new Map(Object.entries(policy.tools).map(([server, byTool]) => [server, new Map(Object.entries(byTool))]));
  const trusted = new Set(trustedServers);
  const memo = new Map<string, Map<string, RuleCandidates>>();
  let memoSize = 0;

  const collect = (serverName: string, toolName: string): RuleCandidates => {
    const found = { managedDeny: [] as CompiledRule[], deny: [] as CompiledRule[], ask: [] as CompiledRule[], allow: [] as CompiledRule[] };
    for (const rule of rules) {
      if (!rule.matchesServer(serverName) || !rule.matchesTool(toolName)) continue;
      if (rule.managed && rule.effect === 'deny') found.managedDeny.push(rule);
      else found[rule.effect].push(rule);
    }
    return found;
  };

  return {
    policy,
    managed,
    // A global mode the organisation locked to something else than "never ask" is not undone per chat either.
    neverAskAllowed: neverAskAllowed(managed),
    candidates(serverName, toolName) {
      let byTool = memo.get(serverName);
      let found = byTool?.get(toolName);
      if (found !== undefined) return found;
      if (memoSize >= CANDIDATE_MEMO_LIMIT) {
        memo.clear();
        memoSize = 0;
        byTool = undefined;
      }
      if (byTool === undefined) {
        byTool = new Map();
        memo.set(serverName, byTool);
      }
      found = collect(serverName, toolName);
      byTool.set(toolName, found);
      memoSize += 1;
      return found;
    },
    toolSetting: (serverName, toolName) => tools.get(serverName)?.get(toolName) ?? 'inherit',
    serverSettings: (serverName) => servers.get(serverName),
    serverTrusted: (serverName) => trusted.has(serverName),
    trustedServers: [...trusted].sort(),
  };
}
