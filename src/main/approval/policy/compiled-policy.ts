import { neverAskAllowed } from '../../../shared/never-ask';
import type {
  ApprovalPolicy,
  ManagedIdentityLock,
  ManagedPolicy,
  ManagedRule,
  ServerApprovalSettings,
  ServerIdentityMatcher,
  ToolApprovalSetting,
} from '../../../shared/approval';
import { compileGlob } from './argument-matcher';
import { compileRule, ruleProblems, type CompiledRule, type RuleProblem } from './rule-compiler';
import {
  NO_SERVER_FACTS,
  type IdentityChange,
  type ServerFactsByName,
  type ServerIdentity,
} from '../../../shared/server-identity';

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
  /** Every rule in the order the pipeline consults them within one effect: the organisation's first, then the person's. */
  readonly rules: readonly CompiledRule[];
  candidates(serverName: string, toolName: string): RuleCandidates;
  toolSetting(serverName: string, toolName: string): ToolApprovalSetting;
  serverSettings(serverName: string): ServerApprovalSettings | undefined;
  /** The user marked the server trusted (`mcpServers.<name>.trusted`): its read-only hints may count (step 7). */
  serverTrusted(serverName: string): boolean;
  /** The trusted servers this policy was compiled with, sorted. */
  readonly trustedServers: readonly string[];
  /**
   * Set when the server runs something else than what its settings were made for (docs/user/approvals.md, "A server's
   * identity"): then no allow rule, auto-approve, trust or grant counts for it, and its calls ask.
   */
  identityChange(serverName: string): IdentityChange | undefined;
  /** When the identity the server's settings were made for was recorded; undefined for an entry written by hand. */
  identitySince(serverName: string): string | undefined;
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
export function compilePolicy(
  policy: ApprovalPolicy,
  managed: ManagedPolicy | null,
  trustedServers: Iterable<string>,
  facts: ServerFactsByName = NO_SERVER_FACTS,
): CompiledPolicy {
  // The organisation's rules first: its deny rules, then its locked ask and allow rules, before the person's of each effect.
  const rules: CompiledRule[] = [
    ...(managed?.rules ?? []).map((rule) => compileRule(rule, { managed: true })),
    ...(managed?.locked.rules ?? []).map((rule) => compileRule(rule, { managed: true })),
    ...policy.rules.map((rule, index) => compileRule(rule, { managed: false, number: index + 1 })),
  ];
  // Own keys only, in Maps: a server called "__proto__" or "constructor" is just a name.
  const servers = new Map(Object.entries(policy.servers));
  const tools = new Map(
    Object.entries(policy.tools).map(([server, byTool]) => [server, new Map(Object.entries(byTool))]),
  );
  const trusted = new Set(trustedServers);
  const memo = new Map<string, Map<string, RuleCandidates>>();
  let memoSize = 0;
  const identityMatchers = new Map<CompiledRule, (identity: ServerIdentity) => boolean>();
  for (const rule of rules) {
    const matcher = (rule.rule as ManagedRule).serverIdentity;
    if (rule.managed && matcher) identityMatchers.set(rule, identityMatcher(matcher));
  }
  const changed = (serverName: string): IdentityChange | undefined => facts.get(serverName)?.identityChanged;
  const aliasMemo = new Map<string, readonly string[]>();
  const aliasesOf = (serverName: string): readonly string[] => {
    let found = aliasMemo.get(serverName);
    if (found === undefined) {
      found = serverAliases(serverName, facts);
      aliasMemo.set(serverName, found);
    }
    return found;
  };
  // The organisation's rules name a server by what it runs, or by a name it has, had, or shares with the same server.
  const serverMatches = (rule: CompiledRule, serverName: string): boolean => {
    if (!rule.managed) return rule.matchesServer(serverName);
    const byIdentity = identityMatchers.get(rule);
    if (byIdentity) {
      const identity = facts.get(serverName)?.identity;
      if (!identity || !byIdentity(identity)) return false;
    }
    return aliasesOf(serverName).some((name) => rule.matchesServer(name));
  };
  // Locks by what a server runs, whatever it is called (docs/user/organisation-policy.md).
  const identityLocks = (managed?.locked.serversByIdentity ?? []).map((lock) => ({
    lock,
    matches: identityMatcher(lock.serverIdentity),
  }));
  const identityLocksOf = (serverName: string): ManagedIdentityLock[] => {
    const identity = facts.get(serverName)?.identity;
    return identity ? identityLocks.filter((entry) => entry.matches(identity)).map((entry) => entry.lock) : [];
  };
  type ServerLock = NonNullable<ManagedPolicy['locked']['servers']>[string];
  const lockedServer = (serverName: string): ServerLock | undefined => {
    const locked = managed?.locked.servers;
    let found: Partial<ServerLock> | undefined;
    if (locked)
      for (const name of aliasesOf(serverName))
        if (Object.hasOwn(locked, name)) {
          found = locked[name];
          break;
        }
    // A lock by identity adds the parts it names; where both name a part, the one by name (the narrower) wins.
    for (const { autoApprove, sampling, samplingTokenBudget } of identityLocksOf(serverName)) {
      const parts = {
        ...(autoApprove !== undefined ? { autoApprove } : {}),
        ...(sampling !== undefined ? { sampling } : {}),
        ...(samplingTokenBudget !== undefined ? { samplingTokenBudget } : {}),
      };
      found = { ...parts, ...found };
    }
    return found && Object.keys(found).length > 0 ? (found as ServerLock) : undefined;
  };
  const lockedTool = (serverName: string, toolName: string): ToolApprovalSetting | undefined => {
    const locked = managed?.locked.tools;
    if (locked)
      for (const name of aliasesOf(serverName)) {
        const byTool = Object.hasOwn(locked, name) ? locked[name] : undefined;
        if (byTool && Object.hasOwn(byTool, toolName)) return byTool[toolName];
      }
    for (const lock of identityLocksOf(serverName))
      if (lock.tools && Object.hasOwn(lock.tools, toolName)) return lock.tools[toolName];
    return undefined;
  };

  const collect = (serverName: string, toolName: string): RuleCandidates => {
    const found = {
      managedDeny: [] as CompiledRule[],
      deny: [] as CompiledRule[],
      ask: [] as CompiledRule[],
      allow: [] as CompiledRule[],
    };
    const identityChanged = changed(serverName) !== undefined;
    for (const rule of rules) {
      if (!rule.matchesTool(toolName) || !serverMatches(rule, serverName)) continue;
      // Rules were made for what the server ran then: none of them allows what it runs now.
      if (identityChanged && rule.effect === 'allow') continue;
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
    rules,
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
    toolSetting(serverName, toolName) {
      const setting = lockedTool(serverName, toolName) ?? tools.get(serverName)?.get(toolName) ?? 'inherit';
      return setting === 'auto-approve' && changed(serverName) ? 'inherit' : setting;
    },
    serverSettings(serverName) {
      const own = servers.get(serverName);
      const lock = lockedServer(serverName);
      // A lock replaces the parts it names (its switch, its sampling); the person's other settings stay.
      const settings = lock ? { autoApprove: false, ...own, ...lock } : own;
      if (!settings || !changed(serverName)) return settings;
      // What limits stays (sampling: deny); what grants waits for the person (auto-approve, sampling: allow, a budget).
      const { samplingTokenBudget: _budget, ...rest } = settings;
      return { ...rest, autoApprove: false, ...(settings.sampling === 'allow' ? { sampling: 'ask' as const } : {}) };
    },
    serverTrusted: (serverName) => trusted.has(serverName) && changed(serverName) === undefined,
    trustedServers: [...trusted].sort(),
    identityChange: changed,
    identitySince: (serverName) => facts.get(serverName)?.identitySince,
  };
}

/**
 * The names an organisation's rule by name reaches a server under: its name, the names it had, and those of every
 * configured server that runs the very same thing (and their former names).
 */
export function serverAliases(serverName: string, facts: ServerFactsByName): readonly string[] {
  const own = facts.get(serverName);
  if (!own) return [serverName];
  const names = new Set([serverName, ...own.formerNames]);
  for (const [name, other] of facts) {
    if (other.identity.key !== own.identity.key) continue;
    names.add(name);
    for (const former of other.formerNames) names.add(former);
  }
  return [...names];
}

/** An organisation's `serverIdentity` matcher: every glob it gives must match. */
export function identityMatcher(matcher: ServerIdentityMatcher): (identity: ServerIdentity) => boolean {
  const test = (glob: string | undefined): ((values: readonly (string | undefined)[]) => boolean) => {
    if (glob === undefined) return () => true;
    const { regex } = compileGlob(glob);
    return (values) => values.some((value) => value !== undefined && regex.test(value));
  };
  const command = test(matcher.command);
  const pkg = test(matcher.package);
  const url = test(matcher.url);
  return (identity) =>
    command([identity.command, identity.command?.split(/[\\/]/).at(-1)]) &&
    pkg([identity.package]) &&
    url([identity.resource, identity.origin]) &&
    (matcher.command === undefined || identity.kind === 'stdio') &&
    (matcher.url === undefined || identity.kind === 'http');
}
