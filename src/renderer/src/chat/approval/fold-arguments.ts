/**
 * The card shows a call's arguments by default (docs/user/approvals.md, "The approval card"); a long text value is
 * folded to its start, marked with its full length, so one big file body does not push the buttons off the screen.
 */

/** A text value longer than this, or with more lines than FOLD_LINES, is folded. */
export const FOLD_CHARS = 240;
export const FOLD_LINES = 6;
/** How much of a folded value stays in view. */
const KEEP_CHARS = 160;
const KEEP_LINES = 3;

export interface FoldedValue {
  /** Where the value is, as a dotted path (`content`, `edits[0].newText`). */
  path: string;
  length: number;
}

export interface FoldedArguments {
  /** Pretty JSON with each long text cut short and marked `… [N characters]`. */
  text: string;
  folded: FoldedValue[];
}

const count = (n: number): string => n.toLocaleString('en-US');

function isLong(text: string): boolean {
  return text.length > FOLD_CHARS || text.split('\n').length > FOLD_LINES;
}

function head(text: string): string {
  const lines = text.split('\n').slice(0, KEEP_LINES).join('\n');
  return lines.length > KEEP_CHARS ? lines.slice(0, KEEP_CHARS) : lines;
}

/** The arguments as the card shows them; `folded` is empty when nothing was long. */
export function foldArguments(args: unknown): FoldedArguments {
  const folded: FoldedValue[] = [];
  const walk = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      if (!isLong(value)) return value;
      folded.push({ path: path || '(value)', length: value.length });
      return `${head(value)}… [${count(value.length)} characters]`;
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, `${path}[${index}]`));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, walk(item, path ? `${path}.${key}` : key)]),
      );
    }
    return value;
  };
  const shown = walk(args, '');
  return { text: JSON.stringify(shown, null, 2) ?? String(shown), folded };
}

/** "content (4,210 characters)", for the button that unfolds them. */
export function foldedWords(folded: readonly FoldedValue[]): string {
  return folded.map((value) => `${value.path} (${count(value.length)} characters)`).join(', ');
}
