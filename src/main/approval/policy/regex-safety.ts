import { RULE_LIMITS } from '../../../shared/approval';

/**
 * Why a rule's regular expression is refused, or null when it may be saved. JavaScript regexes have
 * no time limit and every tool call is tested against every rule, so patterns known for catastrophic
 * backtracking are refused: a repeated group that itself repeats or has alternatives, as in `(a+)+`,
 * `(\w*\s?)*` or `(a|aa)*`. This is a conservative check, not a proof: a few harmless patterns such
 * as `(ab|cd)+` are refused too, and can be written without the repeated alternation.
 */
export function regexProblem(source: string): string | null {
  if (source.length === 0) return 'is empty';
  if (source.length > RULE_LIMITS.regexLength) {
    return `is ${source.length} characters long; at most ${RULE_LIMITS.regexLength} are allowed`;
  }
  try {
    new RegExp(source, 'u');
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message}`;
  }
  const risky = nestedRepetition(source);
  return risky === null
    ? null
    : `repeats a group that itself repeats or has alternatives (${risky}), which can take exponential time; ` +
        'rewrite it without the nested repetition, e.g. (a+)+ as a+ and (a|b)* as [ab]*';
}

interface Group {
  start: number;
  repeats: boolean;
  alternates: boolean;
}

const BRACES = /^\{(\d+)(,(\d*))?\}/;

/** The first repeated group with repetition or alternation inside, as written; null when there is none. */
function nestedRepetition(source: string): string | null {
  const stack: Group[] = [{ start: 0, repeats: false, alternates: false }];
  const top = (): Group => stack[stack.length - 1] as Group;
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '[') {
      i = endOfClass(source, i) + 1;
      const quantifier = quantifierAt(source, i);
      if (quantifier.unbounded) top().repeats = true;
      i += quantifier.length;
      continue;
    }
    if (char === '(') {
      stack.push({ start: i, repeats: false, alternates: false });
      i += 1;
      continue;
    }
    if (char === ')') {
      const group = stack.length > 1 ? (stack.pop() as Group) : top();
      const quantifier = quantifierAt(source, i + 1);
      if (quantifier.unbounded && (group.repeats || group.alternates)) {
        return source.slice(group.start, i + 1 + quantifier.length);
      }
      if (quantifier.unbounded || group.repeats) top().repeats = true;
      i += 1 + quantifier.length;
      continue;
    }
    if (char === '|') {
      top().alternates = true;
      i += 1;
      continue;
    }
    const quantifier = quantifierAt(source, i);
    if (quantifier.length > 0) {
      if (quantifier.unbounded) top().repeats = true;
      i += quantifier.length;
      continue;
    }
    i += 1;
  }
  return null;
}

/** The quantifier starting at `index` (with its lazy `?`), and whether it repeats without a small bound. */
function quantifierAt(source: string, index: number): { length: number; unbounded: boolean } {
  const char = source[index];
  let length = 0;
  let unbounded = false;
  if (char === '*' || char === '+') {
    length = 1;
    unbounded = true;
  } else if (char === '?') {
    length = 1;
  } else if (char === '{') {
    const braces = BRACES.exec(source.slice(index));
    if (braces) {
      length = braces[0].length;
      // {n,} and wide ranges backtrack like +; {n} and {n,m} with a small m do not blow up.
      unbounded = braces[2] !== undefined && (braces[3] === '' || Number(braces[3]) > 16);
    }
  }
  if (length > 0 && source[index + length] === '?') length += 1;
  return { length, unbounded };
}

function endOfClass(source: string, start: number): number {
  let i = start + 1;
  // With the u flag a `]` right after `[` closes the class (`[]` is empty), unlike in PCRE.
  if (source[i] === '^') i += 1;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i;
}
