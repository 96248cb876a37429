import picomatch from 'picomatch';
import type { ArgumentMatcher } from '../../../shared/approval';
import { canonicalJson } from '../../../shared/canonical-json';
import { parsePointer, resolvePointer } from './json-pointer';
import { pathForms } from './path-forms';

/**
 * Globs are path-like: `*` stays within a segment, `**` spans `/`, and dot files match (a deny rule
 * on `/etc/**` must cover `/etc/.ssh`). Unbalanced brackets are an error, not a literal.
 */
export const GLOB_OPTIONS = { dot: true, strictBrackets: true } as const;

/**
 * One argument condition, as plain data tested by one function: every call runs these for every
 * candidate rule, so they stay monomorphic (no closure per rule) and start with a cheap prefix test.
 */
export interface CompiledMatcher {
  readonly tokens: readonly string[];
  readonly kind: ArgumentMatcher['match'];
  /**
   * How a value with several forms is tested. Deny and ask rules match when ANY form matches (each
   * array element, a path as written or in another spelling: path-forms.ts); allow rules only when ALL do, so
   * that neither `/home/me/../../etc/passwd` nor a list with one bad path slips through an allow rule.
   */
  readonly all: boolean;
  readonly expected: ArgumentMatcher['value'];
  readonly regex: RegExp | null;
  /** `one-of`: the canonical JSON of each value listed. */
  readonly values: ReadonlySet<string> | null;
  /** Text every match starts with ('' when nothing is known): tested before the regex. */
  readonly prefix: string;
}

/** Compiles a condition whose pointer and value were validated. */
export function compileMatcher(matcher: ArgumentMatcher, all: boolean): CompiledMatcher {
  const tokens = parsePointer(matcher.pointer);
  if (matcher.match === 'equals')
    return { tokens, kind: 'equals', all, expected: matcher.value, regex: null, values: null, prefix: '' };
  const source = String(matcher.value);
  if (matcher.match === 'one-of') {
    const values = new Set((listedValues(source) ?? []).map((value) => canonicalJson(value)));
    return { tokens, kind: 'one-of', all, expected: source, regex: null, values, prefix: '' };
  }
  if (matcher.match === 'regex')
    return {
      tokens,
      kind: 'regex',
      all,
      expected: source,
      regex: new RegExp(source, 'u'),
      values: null,
      prefix: regexPrefix(source),
    };
  const { regex, prefix } = compileGlob(source);
  return { tokens, kind: 'glob', all, expected: source, regex, values: null, prefix };
}

/** The values a `one-of` condition lists (its value, a JSON array), or null when the value is not one. */
export function listedValues(value: ArgumentMatcher['value']): unknown[] | null {
  if (typeof value !== 'string') return null;
  try {
    const values: unknown = JSON.parse(value);
    if (!Array.isArray(values)) return null;
    values.forEach((item) => canonicalJson(item));
    return values;
  } catch {
    return null;
  }
}

/** Whether the whole value is one of those listed. */
function oneOfHolds(matcher: CompiledMatcher, value: unknown): boolean {
  try {
    return (matcher.values as ReadonlySet<string>).has(canonicalJson(value));
  } catch {
    return false;
  }
}

/** A compiled glob and the literal text its matches start with. */
export interface CompiledGlob {
  readonly regex: RegExp;
  readonly prefix: string;
}

const GLOB_CACHE_LIMIT = 10_000;
const globCache = new Map<string, CompiledGlob>();

/**
 * Compiles a glob (throws for an invalid one), once: policies repeat globs across rules, and a
 * policy is validated and compiled again on every change.
 */
export function compileGlob(glob: string): CompiledGlob {
  let compiled = globCache.get(glob);
  if (compiled === undefined) {
    const regex = picomatch.makeRe(glob, GLOB_OPTIONS);
    const scan = picomatch.scan(glob);
    // Negations match what does not start with the base; a base with an escape is not the literal text.
    compiled = { regex, prefix: scan.negated || scan.base.includes('\\') ? '' : scan.base };
    if (globCache.size >= GLOB_CACHE_LIMIT) globCache.clear();
    globCache.set(glob, compiled);
  }
  return compiled;
}

/** Whether the arguments satisfy the condition; a missing value never does. */
export function matcherHolds(matcher: CompiledMatcher, args: Record<string, unknown>): boolean {
  const value = resolvePointer(args, matcher.tokens);
  if (value === undefined) return false;
  if (matcher.kind === 'one-of') return oneOfHolds(matcher, value);
  if (!Array.isArray(value)) return scalarMatches(matcher, value);
  if (value.length === 0) return false;
  for (const item of value) {
    const matches = scalarMatches(matcher, item);
    if (matcher.all !== matches) return matches;
  }
  return matcher.all;
}

function scalarMatches(matcher: CompiledMatcher, value: unknown): boolean {
  if (matcher.kind === 'equals') return value === matcher.expected;
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else return false;
  // A regex in an allow rule sees the text as written (a URL's host, a command): only deny and ask regexes also see
  // a path's other spellings, which can only make them catch more.
  if (matcher.kind === 'regex' && matcher.all) return textMatches(matcher, text);
  const forms = formsOf(text);
  if (matcher.all) {
    if (!textMatches(matcher, text)) return false;
    for (const form of forms) if (!textMatches(matcher, form)) return false;
    return true;
  }
  if (textMatches(matcher, text)) return true;
  for (const form of forms) if (textMatches(matcher, form)) return true;
  return false;
}

// One decision tests the same argument against many rules: remember the last answer.
let lastText: string | undefined;
let lastForms: readonly string[] = [];

/** The path's other spellings (path-forms.ts), for the last text asked about. */
function formsOf(text: string): readonly string[] {
  if (text !== lastText) {
    lastForms = pathForms(text);
    lastText = text;
  }
  return lastForms;
}

function textMatches(matcher: CompiledMatcher, text: string): boolean {
  return text.startsWith(matcher.prefix) && (matcher.regex as RegExp).test(text);
}

const PLAIN = /[A-Za-z0-9 _\-/:=,@%]/;
const QUANTIFIERS = new Set(['?', '*', '+', '{']);

/** The literal text an anchored regex without alternatives must start with: `cmd` of `^cmd\b`. */
export function regexPrefix(source: string): string {
  if (!source.startsWith('^') || source.includes('|')) return '';
  let end = 1;
  while (end < source.length && PLAIN.test(source[end] as string)) end += 1;
  // A quantifier makes the character before it optional or repeated.
  if (end < source.length && QUANTIFIERS.has(source[end] as string)) end -= 1;
  return end > 1 ? source.slice(1, end) : '';
}
