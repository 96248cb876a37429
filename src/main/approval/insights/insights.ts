import type BetterSqlite3 from 'better-sqlite3';
import type {
  AuditAcceptSuggestionOutput,
  AuditStats,
  AuditStatsQuery,
  AuditSuggestions,
} from '../../../shared/audit-stats';
import { WorkbenchError } from '../../errors';
import { createAuditStats, type RuleDescriptor } from '../../audit/audit-stats';
import type { PolicyService } from '../policy-service';
import type { CompiledPolicy } from '../policy/compiled-policy';
import { reasons, ruleName } from '../policy/decision-reasons';
import { checkRemember, rememberWords } from '../policy/remember';
import { compileRule, type CompiledRule } from '../policy/rule-compiler';
import { NO_SERVER_FACTS, type ServerFactsByName } from '../../../shared/server-identity';
import type { ToolCatalog } from '../tool-catalog';
import { createSuggestionReader } from './suggestions';

/** Approval insights (docs/user/insights.md): the figures, the suggestions, and accepting one. */
export interface AuditInsights {
  stats(query: AuditStatsQuery): AuditStats;
  suggestions(days?: number): AuditSuggestions;
  /**
   * Accepts an allow suggestion: derived again from the log (so only what the evidence shows can be added), checked
   * like "remember from the card" (deny rules and the organisation's locks win), then saved through the policy
   * service, which records it in the audit log and Settings can undo it.
   */
  accept(id: string, days?: number): AuditAcceptSuggestionOutput;
}

const DEFAULT_DAYS = 7;
const DAY_MS = 86_400_000;

export function createAuditInsights(
  db: BetterSqlite3.Database,
  policy: () => PolicyService,
  tools: ToolCatalog,
  servers: () => ServerFactsByName = () => NO_SERVER_FACTS,
  now: () => number = Date.now,
): AuditInsights {
  const read = createAuditStats(db);
  const stats: typeof read = (query, rules, options = {}) => read(query, rules, { ...options, eras: eras(servers()) });
  const readSuggestions = createSuggestionReader(db);
  const suggestions = (days = DEFAULT_DAYS): AuditSuggestions => {
    const to = now();
    const compiled = policy().compiled();
    // Top tools are capped on the page; suggestions look at every tool of the period.
    const figures = stats(
      { from: new Date(to - days * DAY_MS).toISOString(), to: new Date(to + 1).toISOString(), kind: 'tool' },
      ruleDescriptors(compiled),
      { allTools: true },
    );
    return { suggestions: readSuggestions({ stats: figures, policy: compiled, tools, days }) };
  };
  return {
    stats: (query) => stats(query, ruleDescriptors(policy().compiled())),
    suggestions,
    accept(id, days) {
      const found = suggestions(days).suggestions.find((suggestion) => suggestion.id === id);
      if (!found)
        throw new WorkbenchError(
          'not_found',
          'No such suggestion now: the calls it was based on or the policy changed. Reload the suggestions.',
          { id },
        );
      if (found.kind !== 'allow-tool')
        throw new WorkbenchError(
          'invalid_input',
          'Only a suggestion to allow a tool can be accepted; change rules in Settings › Approvals.',
          { id },
        );
      const service = policy();
      const view = service.view();
      const ruleId = `insights-${found.id.slice('allow-tool:'.length, 'allow-tool:'.length + 12)}`;
      const call = { serverName: found.serverName, toolName: found.toolName, args: {} };
      const action = { kind: 'rule' as const, id: ruleId, args: found.args };
      // The check remember-from-the-card runs, on every call the rule allows: a deny rule that catches any of them,
      // an ask rule that means to catch one, or the organisation's lock refuses it.
      for (const allowed of found.allows) {
        const verdict = checkRemember({ ...call, args: JSON.parse(allowed) as Record<string, unknown> }, action, {
          policy: view.policy,
          managed: service.compiled().managed,
          trustedServers: service.compiled().trustedServers,
        });
        if (!verdict.ok)
          throw new WorkbenchError('locked', `The suggestion cannot be accepted: ${verdict.refusal}`, { id });
      }
      service.update({
        rules: {
          add: [
            {
              id: ruleId,
              effect: 'allow',
              server: found.serverName,
              tool: found.toolName,
              args: found.args,
              note: 'accepted from an Insights suggestion',
            },
          ],
        },
      });
      const words = rememberWords(call, action);
      return { ruleId, change: words.change, undo: words.undo };
    },
  };
}

/**
 * When each configured server's current identity was recorded, as the log writes times: the calls made under its name
 * until then count apart (docs/user/insights.md). An entry without it (written by hand, or before this was recorded)
 * has every call of its name; one whose time is not a time has none of the earlier calls as its own.
 */
export function eras(facts: ServerFactsByName): Map<string, string> {
  const found = new Map<string, string>();
  for (const [name, server] of facts) {
    if (server.identitySince === undefined) continue;
    const time = Date.parse(server.identitySince);
    found.set(name, Number.isNaN(time) ? '9999-12-31T23:59:59.999Z' : new Date(time).toISOString());
  }
  return found;
}

/** The rules of the current policy, numbered as compilePolicy numbers them (the organisation's first, then the person's from 1), with the texts each writes. */
export function ruleDescriptors(policy: CompiledPolicy): RuleDescriptor[] {
  const rules: CompiledRule[] = [
    ...(policy.managed?.rules ?? []).map((rule) => compileRule(rule, { managed: true })),
    ...(policy.managed?.locked.rules ?? []).map((rule) => compileRule(rule, { managed: true })),
    ...policy.policy.rules.map((rule, index) => compileRule(rule, { managed: false, number: index + 1 })),
  ];
  return rules.map((rule) => ({
    ruleId: rule.rule.id,
    name: ruleName(rule),
    description: rule.description,
    effect: rule.effect,
    managed: rule.managed,
    texts:
      rule.effect === 'allow'
        ? [reasons.allow(rule)]
        : rule.effect === 'deny'
          ? [rule.managed ? reasons.managedDeny(rule) : reasons.deny(rule)]
          : [],
  }));
}
