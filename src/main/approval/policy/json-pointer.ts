/**
 * JSON Pointers (RFC 6901): `/path`, `/options/0/name`, `~1` for `/` and `~0` for `~` inside a token.
 * Parsed once when a rule is saved, so a decision only walks the tokens.
 */

/** Why a pointer cannot be used, or null when it can. */
export function pointerProblem(pointer: string): string | null {
  if (pointer === '') return 'points at the whole arguments object; point at one argument, e.g. /path';
  if (!pointer.startsWith('/')) return `must start with "/" (a JSON pointer such as /${pointer})`;
  const badEscape = /~(?![01])/.exec(pointer);
  if (badEscape)
    return `has "~" at position ${badEscape.index + 1} not followed by 0 or 1 (write ~0 for "~" and ~1 for "/")`;
  return null;
}

/** The reference tokens of a valid pointer. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** The value the tokens select in `document`, or undefined when there is none (own members only). */
export function resolvePointer(document: unknown, tokens: readonly string[]): unknown {
  let current = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(token)) return undefined;
      current = current[Number(token)];
    } else if (current !== null && typeof current === 'object') {
      if (!Object.hasOwn(current, token)) return undefined;
      current = (current as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return current;
}
