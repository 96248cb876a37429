import { canonicalJson } from '../../../shared/canonical-json';
import type { ApprovalRule, ArgumentMatcher, RuleEffect } from '../../../shared/approval';
import { compileGlob, compileMatcher, listedValues, matcherHolds, type CompiledMatcher } from './argument-matcher';
import { pointerProblem } from './json-pointer';
import { regexProblem } from './regex-safety';

/** What is wrong with one part of one rule, said so that a person can fix it. */
export interface RuleProblem {
  ruleId: string;
  /** The user's rules: the rule's place in the list, from 1. */
  ruleNumber?: number | undefined;
  /** `server`, `tool`, `args[0].pointer`, `args[0].value`… */
  field: string;
  /** The same place as a path inside the rule, for zod issues: `['args', 0, 'value']`. */
  path: (string | number)[];
  problem: string;
}

/**
 * A rule made ready to test: globs turned into regular expressions, pointers into tokens, once per
 * policy change, so testing a call parses nothing.
 */
export interface CompiledRule {
  readonly rule: ApprovalRule;
  readonly effect: RuleEffect;
  readonly managed: boolean;
  /** The user's rules only: the place in the list, from 1. */
  readonly number: number | undefined;
  /** "Files write_* when /path matches /etc/**" */
  readonly description: string;
  /** All must hold (see `argumentsMatch`). */
  readonly matchers: readonly CompiledMatcher[];
  matchesServer(name: string): boolean;
  matchesTool(name: string): boolean;
  matchesArgs(args: Record<string, unknown>): boolean;
}

/** Whether every argument condition of the rule holds; the hot path of a decision. */
export function argumentsMatch(rule: CompiledRule, args: Record<string, unknown>): boolean {
  for (const matcher of rule.matchers) if (!matcherHolds(matcher, args)) return false;
  return true;
}
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;

export function globProblem(glob: string): string | null {
  if (glob.length === 0) return 'is empty';
  try {
    compileGlob(glob);
    return null;
  } catch (error) {
    return `is not a valid glob: ${(error as Error).message}`;
  }
}

/** A name matcher; plain names (most servers) compare as strings. */
export function nameMatcher(glob: string): (name: string) => boolean {
  if (glob === '*' || glob === '**') return () => true;
  if (!GLOB_SYNTAX.test(glob)) return (name) => name === glob;
  const { regex } = compileGlob(glob);
  return (name) => regex.test(name);
}

/** Every problem of one rule; empty when it can be saved. */
export function ruleProblems(rule: ApprovalRule, ruleNumber?: number): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const add = (path: (string | number)[], problem: string | null): void => {
    if (problem === null) return;
    const field = path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`))
      .join('')
      .slice(1);
    problems.push({ ruleId: rule.id, ruleNumber, field, path, problem });
  };
  add(['server'], globProblem(rule.server));
  add(['tool'], globProblem(rule.tool));
  (rule.args ?? []).forEach((matcher, index) => {
    // `one-of` may name the whole arguments (pointer "").
    add(
      ['args', index, 'pointer'],
      matcher.match === 'one-of' && matcher.pointer === '' ? null : pointerProblem(matcher.pointer),
    );
    add(['args', index, 'value'], matcherValueProblem(matcher));
  });
  return problems;
}

function matcherValueProblem(matcher: ArgumentMatcher): string | null {
  if (matcher.match === 'equals') return null;
  if (typeof matcher.value !== 'string') return `must be a string for ${matcher.match} matching`;
  if (matcher.match === 'one-of')
    return listedValues(matcher.value) === null
      ? 'must be a JSON array of the values allowed, e.g. ["a.md","b.md"]'
      : null;
  return matcher.match === 'glob' ? globProblem(matcher.value) : regexProblem(matcher.value);
}

/** "Rule #3 ('no-etc'), args[0].value: is not a valid glob: …" */
export function describeProblem(problem: RuleProblem): string {
  const which =
    problem.ruleNumber === undefined ? `Rule '${problem.ruleId}'` : `Rule #${problem.ruleNumber} ('${problem.ruleId}')`;
  return `${which}, ${problem.field}: ${problem.problem}`;
}

/** "Files write_* when /path matches /etc/**" */
export function describeRule(rule: ApprovalRule): string {
  const target = `${rule.server} ${rule.tool}`;
  const conditions = (rule.args ?? []).map((matcher) => {
    switch (matcher.match) {
      case 'glob':
        return `${matcher.pointer} matches ${String(matcher.value)}`;
      case 'regex':
        return `${matcher.pointer} matches the pattern /${String(matcher.value)}/`;
      case 'equals':
        return `${matcher.pointer} is ${JSON.stringify(matcher.value)}`;
      case 'one-of': {
        const values = (listedValues(matcher.value) ?? []).map((value) => canonicalJson(value));
        const what = matcher.pointer === '' ? 'the arguments are' : `${matcher.pointer} is`;
        return values.length === 1 ? `${what} exactly ${values[0]}` : `${what} one of ${values.join(', ')}`;
      }
    }
  });
  return conditions.length === 0 ? target : `${target} when ${conditions.join(' and ')}`;
}

/** Compiles a rule that `ruleProblems` found no fault with (throws otherwise). */
export function compileRule(
  rule: ApprovalRule,
  options: { managed: boolean; number?: number | undefined },
): CompiledRule {
  const problems = ruleProblems(rule, options.number);
  if (problems.length > 0) throw new Error(describeProblem(problems[0] as RuleProblem));
  const matchers = (rule.args ?? []).map((matcher) => compileMatcher(matcher, rule.effect === 'allow'));
  const compiled: CompiledRule = {
    rule,
    effect: rule.effect,
    managed: options.managed,
    number: options.number,
    description: describeRule(rule),
    matchers,
    matchesServer: nameMatcher(rule.server),
    matchesTool: nameMatcher(rule.tool),
    matchesArgs: (args) => argumentsMatch(compiled, args),
  };
  return compiled;
}
