import type { ArgumentMatcher, ManagedRule, RuleEffect } from '../../../shared/approval';
import { compileGlob, compileMatcher, matcherHolds } from './argument-matcher';
import { parsePointer } from './json-pointer';
import type { CompiledRule } from './rule-compiler';

/**
 * A rule of the person's that never decides a call (docs/user/approvals.md, "Testing your rules"):
 * `never-matches` — its own conditions contradict each other, so no arguments satisfy it;
 * `shadowed` — a rule the pipeline consults first matches every call this one matches.
 */
export interface RuleFinding {
  readonly kind: 'never-matches' | 'shadowed';
  readonly ruleId: string;
  /** The person's rules: the place in the list, from 1. */
  readonly ruleNumber: number | undefined;
  /** The rule that always decides first (`shadowed` only). */
  readonly byRuleId?: string | undefined;
  readonly message: string;
}

const EFFECT_ORDER: Record<RuleEffect, number> = { deny: 0, ask: 1, allow: 2 };
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;

/**
 * Finds the person's rules that can never decide, given every rule in the order `compilePolicy` lists them (the
 * organisation's first). Conservative: a rule is flagged only when it provably never decides; rules this cannot
 * prove anything about (two globs that overlap in part) are not flagged.
 */
export function ruleFindings(rules: readonly CompiledRule[]): RuleFinding[] {
  const findings: RuleFinding[] = [];
  rules.forEach((rule, index) => {
    if (rule.managed) return;
    const contradiction = contradictionOf(rule.rule.args ?? [], rule.effect === 'allow');
    if (contradiction !== undefined) {
      findings.push({
        kind: 'never-matches',
        ruleId: rule.rule.id,
        ruleNumber: rule.number,
        message: `${ruleName(rule)} can never match: ${contradiction}.`,
      });
      return;
    }
    const earlier = rules.find(
      (other, otherIndex) => decidesFirst(other, otherIndex, rule, index) && covers(other, rule),
    );
    if (earlier) {
      findings.push({
        kind: 'shadowed',
        ruleId: rule.rule.id,
        ruleNumber: rule.number,
        byRuleId: earlier.rule.id,
        message: `${ruleName(rule)} never decides: ${ruleName(earlier)} is checked first and matches every call it matches${
          earlier.effect === rule.effect ? '' : ` (${earlier.effect} rules come before ${rule.effect} rules)`
        }.`,
      });
    }
  });
  return findings;
}

/** "Rule #2 ('notes')", or "your organisation's rule 'no-etc'". */
function ruleName(rule: CompiledRule): string {
  if (rule.managed) return `your organisation's rule '${rule.rule.id}'`;
  return rule.number === undefined ? `Rule '${rule.rule.id}'` : `Rule #${rule.number} ('${rule.rule.id}')`;
}

/** Deny rules before ask rules before allow rules; within one effect, the list order (the organisation's first). */
function decidesFirst(other: CompiledRule, otherIndex: number, rule: CompiledRule, index: number): boolean {
  if (other === rule) return false;
  const byEffect = EFFECT_ORDER[other.effect] - EFFECT_ORDER[rule.effect];
  return byEffect < 0 || (byEffect === 0 && otherIndex < index);
}

/** Whether `other` matches every call `rule` matches: its server, tool and argument conditions are all wider. */
function covers(other: CompiledRule, rule: CompiledRule): boolean {
  // An organisation's rule that names a server by what it runs matches only where that runs: not provably wider.
  if ((other.rule as ManagedRule).serverIdentity !== undefined) return false;
  if (!globCovers(other.rule.server, rule.rule.server, (name) => other.matchesServer(name))) return false;
  if (!globCovers(other.rule.tool, rule.rule.tool, (name) => other.matchesTool(name))) return false;
  // Every condition of the earlier rule must be one of this rule's own. A deny or ask condition holds when any form
  // of a value matches, an allow condition only when all do: "all" implies "any", never the other way round.
  const own = rule.rule.args ?? [];
  return (other.rule.args ?? []).every((condition) =>
    own.some((mine) => sameCondition(condition, mine) && (other.effect !== 'allow' || rule.effect === 'allow')),
  );
}

function globCovers(wider: string, narrower: string, matches: (name: string) => boolean): boolean {
  if (wider === '*' || wider === '**' || wider === narrower) return true;
  return !GLOB_SYNTAX.test(narrower) && matches(narrower);
}

function sameCondition(a: ArgumentMatcher, b: ArgumentMatcher): boolean {
  return a.pointer === b.pointer && a.match === b.match && a.value === b.value;
}

/**
 * Why no arguments can satisfy all these conditions at once, or undefined: two `equals` on one argument that differ,
 * or an `equals` text that another condition on the same argument does not match.
 */
function contradictionOf(conditions: readonly ArgumentMatcher[], all: boolean): string | undefined {
  const equals = conditions.filter((condition) => condition.match === 'equals');
  for (const fixed of equals) {
    for (const other of conditions) {
      if (other === fixed || other.pointer !== fixed.pointer) continue;
      if (other.match === 'equals') {
        if (other.value !== fixed.value)
          return `${fixed.pointer} cannot be both ${JSON.stringify(fixed.value)} and ${JSON.stringify(other.value)}`;
        continue;
      }
      if (!holdsFor(other, fixed.pointer, fixed.value, all))
        return `${fixed.pointer} must be ${JSON.stringify(fixed.value)}, which does not match ${
          other.match === 'glob' ? `the glob ${String(other.value)}` : `the pattern /${String(other.value)}/`
        }`;
    }
  }
  return undefined;
}

function holdsFor(condition: ArgumentMatcher, pointer: string, value: unknown, all: boolean): boolean {
  if (condition.match === 'glob') compileGlob(String(condition.value));
  const args: Record<string, unknown> = {};
  let target: Record<string, unknown> = args;
  const tokens = parsePointer(pointer);
  tokens.forEach((token, index) => {
    if (index === tokens.length - 1) target[token] = value;
    else target = target[token] = {};
  });
  return matcherHolds(compileMatcher(condition, all), args);
}
