import type BetterSqlite3 from 'better-sqlite3';
import type { ArgumentMatcher } from '../../../shared/approval';
import type { AuditStats, Suggestion } from '../../../shared/audit-stats';
import { RULE_LIMITS } from '../../../shared/approval';
import { canonicalJson } from '../../../shared/canonical-json';
import type { CompiledPolicy } from '../policy/compiled-policy';
import { decide } from '../policy/decision-pipeline';
import { reasons, ruleName } from '../policy/decision-reasons';
import { locatingPointers } from '../policy/remember';
import { compileRule, type CompiledRule } from '../policy/rule-compiler';
import { sha256Hex } from '../../audit/audit-row';
import { REDACTED } from '../../audit/redact';

/**
 * Suggestions from the evidence (docs/user/insights.md#suggestions). Pure reading: accepting one is the policy
 * service's change, checked like "remember from the card" (audit-insights.ts).
 *
 * An allow suggestion is never broader than the calls it saw: each argument the card's "calls like this" would name
 * (a path, a URL; or every scalar argument when there is none) is held to exactly the values seen — one value as
 * `equals`, several as an anchored alternation of the literal values — never to their folder or host.
 */

/** Calls a person allowed before a suggestion to stop asking is made. */
export const MIN_ALLOWED = 5;
/** Distinct values an argument may have had; more would need a broader condition, so no suggestion is made. */
const MAX_VALUES = 12;

export interface SeenCall {
  readonly args: Record<string, unknown>;
}

/** The conditions that allow exactly the values seen, or null when they cannot be written without widening. */
export function conditionsFor(calls: readonly SeenCall[]): ArgumentMatcher[] | null {
  if (calls.length === 0) return null;
  // The arguments remember-from-the-card would name, taken from every call (a call without one of them is not covered).
  const pointers = new Set<string>();
  for (const call of calls) for (const pointer of locatingPointers(call.args)) pointers.add(pointer);
  if (pointers.size === 0 || pointers.size > RULE_LIMITS.matchersPerRule) return null;
  const conditions: ArgumentMatcher[] = [];
  for (const pointer of [...pointers].sort()) {
    const name = pointer.slice(1).replaceAll('~1', '/').replaceAll('~0', '~');
    const values = new Set<string | number | boolean | null>();
    for (const call of calls) {
      const value = call.args[name];
      if (value === undefined || (value !== null && typeof value === 'object')) return null;
      if (typeof value === 'string' && value.includes(REDACTED)) return null;
      values.add(value as string | number | boolean | null);
    }
    if (values.size > MAX_VALUES) return null;
    const [only] = values;
    if (values.size === 1) {
      conditions.push({ pointer, match: 'equals', value: only as string | number | boolean | null });
      continue;
    }
    if (![...values].every((value) => typeof value === 'string')) return null;
    const regex = `^(?:${[...(values as Set<string>)].sort().map(escapeRegex).join('|')})$`;
    if (regex.length > RULE_LIMITS.regexLength) return null;
    conditions.push({ pointer, match: 'regex', value: regex });
  }
  return conditions;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function suggestionId(serverName: string, toolName: string, args: readonly ArgumentMatcher[]): string {
  return `allow-tool:${sha256Hex(canonicalJson({ serverName, toolName, args })).slice(0, 24)}`;
}

export interface SuggestionSources {
  stats: AuditStats;
  policy: CompiledPolicy;
  /** The period the stats cover, in days, for the words. */
  days: number;
}

export function createSuggestionReader(db: BetterSqlite3.Database) {
  const allowedCalls = db
    .prepare<[string, string, string, string]>(
      `SELECT args FROM audit_log WHERE server_name = ? AND tool_name = ? AND kind = 'decision' AND time >= ? AND time < ?
       AND decision IN ('allow_once', 'allow_session') AND actor IN ('user', 'cli')`,
    )
    .pluck();

  return ({ stats, policy, days }: SuggestionSources): Suggestion[] => {
    const suggestions: Suggestion[] = [];
    const period = `${days} day${days === 1 ? '' : 's'}`;
    for (const tool of stats.tools) {
      if (tool.allowedByYou < MIN_ALLOWED || tool.deniedByYou > 0) continue;
      const calls = (allowedCalls.all(tool.serverName, tool.toolName, stats.from, stats.to) as (string | null)[]).map(
        (text) => ({
          args: (text === null ? {} : JSON.parse(text)) as Record<string, unknown>,
        }),
      );
      const args = conditionsFor(calls);
      if (args === null) continue;
      // Only when today's policy still asks about some of them: otherwise there is no prompt to remove.
      const call = { serverName: tool.serverName, toolName: tool.toolName };
      if (!calls.some((seen) => decide({ call: { ...call, args: seen.args } }, policy).outcome === 'ask')) continue;
      const name = `${tool.serverName}.${tool.toolName}`;
      suggestions.push({
        kind: 'allow-tool',
        id: suggestionId(tool.serverName, tool.toolName, args),
        text: `You allowed ${name} ${tool.allowedByYou} times in ${period} and never denied it — allow it without asking?`,
        serverName: tool.serverName,
        toolName: tool.toolName,
        args,
        change: `A new allow rule at the end of your list for ${name}, for the argument values you allowed only. Calls it matches run without asking, in every chat, unless a deny or ask rule catches them.`,
        evidence: {
          serverName: tool.serverName,
          toolName: tool.toolName,
          decidedBy: null,
          decisions: ['allow_once', 'allow_session'],
          from: stats.from,
          to: stats.to,
          count: calls.length,
        },
      });
    }
    for (const rule of stats.rules) {
      if (rule.managed || rule.effect === 'ask' || rule.decided > 0) continue;
      suggestions.push({
        kind: 'unused-rule',
        id: `unused-rule:${rule.ruleId}`,
        text: `${capitalise(rule.name)} (${rule.description}) has not matched in ${period}.`,
        ruleId: rule.ruleId,
        evidence: {
          serverName: null,
          toolName: null,
          decidedBy: null,
          decisions: [rule.effect === 'allow' ? 'auto_allow' : 'auto_deny'],
          from: stats.from,
          to: stats.to,
          count: 0,
        },
      });
    }
    suggestions.push(...overlaps(policy, stats));
    return suggestions;
  };
}

/** Two rules of the person with the same effect, server and tool, where the earlier one's conditions already cover the later one's. */
function overlaps(policy: CompiledPolicy, stats: AuditStats): Suggestion[] {
  const rules = policy.policy.rules.map((rule, index) => compileRule(rule, { managed: false, number: index + 1 }));
  const found: Suggestion[] = [];
  for (let later = 0; later < rules.length; later++) {
    for (let earlier = 0; earlier < later; earlier++) {
      const a = rules[earlier] as CompiledRule;
      const b = rules[later] as CompiledRule;
      if (a.effect !== b.effect || a.rule.server !== b.rule.server || a.rule.tool !== b.rule.tool) continue;
      const aArgs = a.rule.args ?? [];
      const bArgs = b.rule.args ?? [];
      // The earlier rule's conditions are a subset of the later's: every call the later matches, the earlier matches first.
      if (!aArgs.every((condition) => bArgs.some((other) => canonicalJson(other) === canonicalJson(condition))))
        continue;
      const text = a.effect === 'allow' ? reasons.allow(b) : reasons.deny(b);
      found.push({
        kind: 'overlapping-rules',
        id: `overlapping-rules:${a.rule.id}:${b.rule.id}`,
        text: `${capitalise(ruleName(a))} and ${ruleName(b)} overlap: every call ${ruleName(b)} matches, ${ruleName(a)} matches first, so ${ruleName(b)} never decides.`,
        ruleIds: [a.rule.id, b.rule.id],
        evidence: {
          serverName: null,
          toolName: null,
          decidedBy: text,
          decisions: [],
          from: stats.from,
          to: stats.to,
          count: stats.rules.find((rule) => rule.ruleId === b.rule.id)?.decided ?? 0,
        },
      });
    }
  }
  return found;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
