import path from 'node:path';
import picomatch from 'picomatch';
import type { ApprovalRule, ArgumentMatcher, RuleEffect } from '../../shared/approval';
import { parsePointer, pointerProblem, resolvePointer } from './json-pointer';
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
  matchesServer(name: string): boolean;
  matchesTool(name: string): boolean;
  matchesArgs(args: Record<string, unknown>): boolean;
}

/**
 * Globs are path-like: `*` stays within a segment, `**` spans `/`, and dot files match (a deny rule
 * on `/etc/**` must cover `/etc/.ssh`). Unbalanced brackets are an error, not a literal.
 */
const GLOB_OPTIONS = { dot: true, strictBrackets: true } as const;
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;

function globProblem(glob: string): string | null {
  if (glob.length === 0) return 'is empty';
  try {
    picomatch.makeRe(glob, GLOB_OPTIONS);
    return null;
  } catch (error) {
    return `is not a valid glob: ${(error as Error).message}`;
  }
}

/** A name matcher; plain names (most servers) compare as strings. */
function nameMatcher(glob: string): (name: string) => boolean {
  if (glob === '*' || glob === '**') return () => true;
  if (!GLOB_SYNTAX.test(glob)) return (name) => name === glob;
  const regex = picomatch.makeRe(glob, GLOB_OPTIONS);
  return (name) => regex.test(name);
}

/** Every problem of one rule; empty when it can be saved. */
export function ruleProblems(rule: ApprovalRule, ruleNumber?: number): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const add = (path: (string | number)[], problem: string | null): void => {
    if (problem === null) return;
    const field = path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('').slice(1);
    problems.push({ ruleId: rule.id, ruleNumber, field, path, problem });
  };
  add(['server'], globProblem(rule.server));
  add(['tool'], globProblem(rule.tool));
  (rule.args ?? []).forEach((matcher, index) => {
    add(['args', index, 'pointer'], pointerProblem(matcher.pointer));
    add(['args', index, 'value'], matcherValueProblem(matcher));
  });
  return problems;
}

function matcherValueProblem(matcher: ArgumentMatcher): string | null {
  if (matcher.match === 'equals') return null;
  if (typeof matcher.value !== 'string') return `must be a string for ${matcher.match} matching`;
  return matcher.match === 'glob' ? globProblem(matcher.value) : regexProblem(matcher.value);
}

/** "Rule #3 ('no-etc'), args[0].value: is not a valid glob: …" */
export function describeProblem(problem: RuleProblem): string {
  const which = problem.ruleNumber === undefined ? `Rule '${problem.ruleId}'` : `Rule #${problem.ruleNumber} ('${problem.ruleId}')`;
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
    }
  });
  return conditions.length === 0 ? target : `${target} when ${conditions.join(' and ')}`;
}

/**
 * How a value is tested. Deny and ask rules match when ANY form of the value matches (each array
 * element, the path as written or normalised); allow rules only when ALL do, so that neither
 * `/home/me/../../etc/passwd` nor a list with one bad path slips through an allow rule.
 */
type Quantifier = 'any' | 'all';

function valueTester(matcher: ArgumentMatcher, quantifier: Quantifier): (value: unknown) => boolean {
  const { value: expected } = matcher;
  let testScalar: (value: unknown) => boolean;
  if (matcher.match === 'equals') {
    testScalar = (value) => value === expected;
  } else {
    const regex = matcher.match === 'glob' ? picomatch.makeRe(String(expected), GLOB_OPTIONS) : new RegExp(String(expected), 'u');
    const testString = (text: string): boolean => {
      if (matcher.match !== 'glob' || !text.includes('/')) return regex.test(text);
      const normalised = path.posix.normalize(text);
      if (normalised === text) return regex.test(text);
      return quantifier === 'any' ? regex.test(text) || regex.test(normalised) : regex.test(text) && regex.test(normalised);
    };
    testScalar = (value) => {
      if (typeof value === 'string') return testString(value);
      if (typeof value === 'number' || typeof value === 'boolean') return testString(String(value));
      return false;
    };
  }
  return (value) => {
    if (!Array.isArray(value)) return testScalar(value);
    if (value.length === 0) return false;
    return quantifier === 'any' ? value.some(testScalar) : value.every(testScalar);
  };
}

/** Compiles a rule that `ruleProblems` found no fault with (throws otherwise). */
export function compileRule(rule: ApprovalRule, options: { managed: boolean; number?: number | undefined }): CompiledRule {
  const problems = ruleProblems(rule, options.number);
  if (problems.length > 0) throw new Error(describeProblem(problems[0] as RuleProblem));
  const quantifier: Quantifier = rule.effect === 'allow' ? 'all' : 'any';
  const matchers = (rule.args ?? []).map((matcher) => ({ tokens: parsePointer(matcher.pointer), test: valueTester(matcher, quantifier) }));
  return {
    rule,
    effect: rule.effect,
    managed: options.managed,
    number: options.number,
    description: describeRule(rule),
    matchesServer: nameMatcher(rule.server),
    matchesTool: nameMatcher(rule.tool),
    matchesArgs(args) {
      for (const matcher of matchers) {
        const value = resolvePointer(args, matcher.tokens);
        if (value === undefined || !matcher.test(value)) return false;
      }
      return true;
    },
  };
}
