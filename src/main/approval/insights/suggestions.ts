import type BetterSqlite3 from 'better-sqlite3';
import type { ArgumentMatcher } from '../../../shared/approval';
import type { AuditStats, Suggestion } from '../../../shared/audit-stats';
import { RULE_LIMITS } from '../../../shared/approval';
import { canonicalJson } from '../../../shared/canonical-json';
import type { CompiledPolicy } from '../policy/compiled-policy';
import { decide } from '../policy/decision-pipeline';
import { reasons, ruleName } from '../policy/decision-reasons';
import { compileRule, type CompiledRule } from '../policy/rule-compiler';
import type { ToolCatalog } from '../tool-catalog';
import { sha256Hex } from '../../audit/audit-row';
import { REDACTED } from '../../audit/redact';

/**
 * Suggestions from the evidence (docs/user/insights.md#suggestions). Pure reading: accepting one is the policy
 * service's change, checked like "remember from the card" (insights.ts).
 *
 * An allow suggestion is never broader than the calls it saw: its one condition lists the arguments of each call
 * (`one-of` over the whole arguments), so a call with any other value, one more argument or one fewer is still asked
 * about. It rests only on calls made to the tool's current definition since the server's current identity was
 * recorded (added, imported or accepted), and none is made for a server whose identity changed since its settings
 * were made.
 */

/** Calls a person allowed before a suggestion to stop asking is made. */
export const MIN_ALLOWED = 5;
/** Different calls a suggestion may list; more would need a broader condition, so no suggestion is made. */
const MAX_CALLS = 12;

export interface SeenCall {
  readonly args: Record<string, unknown>;
}

/** The condition that allows exactly the calls seen, or null when it cannot be written (a value redacted, too many). */
export function conditionsFor(calls: readonly SeenCall[]): ArgumentMatcher[] | null {
  if (calls.length === 0) return null;
  const distinct = new Set<string>();
  for (const call of calls) {
    if (holdsRedacted(call.args)) return null;
    distinct.add(canonicalJson(call.args));
  }
  if (distinct.size > MAX_CALLS) return null;
  const value = `[${[...distinct].sort().join(',')}]`;
  if (value.length > RULE_LIMITS.valueLength) return null;
  return [{ pointer: '', match: 'one-of', value }];
}

/** The calls a suggestion's condition allows, each as canonical JSON: what the person is shown before accepting. */
export function callsAllowed(args: readonly ArgumentMatcher[]): string[] {
  const [listed] = args;
  if (args.length !== 1 || listed?.match !== 'one-of' || listed.pointer !== '') return [];
  return (JSON.parse(String(listed.value)) as unknown[]).map((call) => canonicalJson(call));
}

function holdsRedacted(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(REDACTED);
  if (Array.isArray(value)) return value.some(holdsRedacted);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).some(([key, item]) => key.includes(REDACTED) || holdsRedacted(item));
  return false;
}

export function suggestionId(serverName: string, toolName: string, args: readonly ArgumentMatcher[]): string {
  return `allow-tool:${sha256Hex(canonicalJson({ serverName, toolName, args })).slice(0, 24)}`;
}

export interface SuggestionSources {
  stats: AuditStats;
  policy: CompiledPolicy;
  /** The tools as their servers offer them now: a suggestion rests only on calls made to the current definition. */
  tools: ToolCatalog;
  /** The period the stats cover, in days, for the words. */
  days: number;
}

export function createSuggestionReader(db: BetterSqlite3.Database) {
  // The arguments that ran: the person's edit when they edited the call before allowing it.
  // Strictly after the identity was recorded: a row of the same millisecond may be of what the name meant before.
  const allowedCalls = db.prepare<[string, string, string, string, string]>(
    `SELECT COALESCE(edited_args, args) AS args, definition_hash AS definitionHash FROM audit_log
       WHERE server_name = ? AND tool_name = ? AND kind = 'decision' AND time >= ? AND time < ? AND time > ?
       AND decision IN ('allow_once', 'allow_session') AND actor IN ('user', 'cli')`,
  );

  return ({ stats, policy, tools, days }: SuggestionSources): Suggestion[] => {
    const suggestions: Suggestion[] = [];
    const period = `${days} day${days === 1 ? '' : 's'}`;
    for (const tool of stats.tools) {
      // The calls made under the name before the server that has it now are no evidence for it.
      if (tool.until !== undefined || tool.allowedByYou < MIN_ALLOWED || tool.deniedByYou > 0) continue;
      // A server that runs something else than its settings were made for: its allow rules do not count, and the calls
      // seen were made to what it ran then.
      if (policy.identityChange(tool.serverName) !== undefined) continue;
      // The tool as offered now, unchanged since it was first seen; only the calls made to this definition count.
      const definition = tools.find(tool.serverName, tool.toolName);
      if (definition === undefined || definition.previous !== undefined) continue;
      // Calls from before the identity was recorded were made to what the server ran then.
      const recorded = policy.identitySince(tool.serverName);
      // A time edited by hand into something else than a time: when the calls were made to it is unknown.
      if (recorded !== undefined && Number.isNaN(Date.parse(recorded))) continue;
      const since = recorded === undefined ? '' : new Date(recorded).toISOString();
      const rows = allowedCalls.all(tool.serverName, tool.toolName, stats.from, stats.to, since) as {
        args: string | null;
        definitionHash: string | null;
      }[];
      if (rows.some((row) => row.args === null)) continue;
      const calls = rows
        .filter((row) => row.definitionHash === definition.definitionHash)
        .map((row) => ({ args: JSON.parse(row.args as string) as Record<string, unknown> }));
      if (calls.length < MIN_ALLOWED) continue;
      const args = conditionsFor(calls);
      if (args === null) continue;
      // Only when today's policy still asks about some of them: otherwise there is no prompt to remove.
      const call = { serverName: tool.serverName, toolName: tool.toolName };
      if (
        !calls.some(
          (seen) => decide({ call: { ...call, args: seen.args }, tool: definition }, policy).outcome === 'ask',
        )
      )
        continue;
      const name = `${tool.serverName}.${tool.toolName}`;
      const allows = callsAllowed(args);
      suggestions.push({
        kind: 'allow-tool',
        id: suggestionId(tool.serverName, tool.toolName, args),
        text: `You allowed ${name} ${calls.length} times in ${period} and never denied it — allow it without asking?`,
        serverName: tool.serverName,
        toolName: tool.toolName,
        args,
        allows,
        change: `A new allow rule at the end of your list for ${name}, for ${allows.length === 1 ? 'the one call' : `the ${allows.length} different calls`} you allowed only, with exactly these arguments. Calls it matches run without asking, in every chat, unless a deny or ask rule catches them; a call with any other argument is still asked about.`,
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
