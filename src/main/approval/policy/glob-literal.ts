/**
 * Names a server chooses (tool, prompt and resource names) and names a person chooses (server names) are literal in
 * every rule built from them (docs/user/approvals.md, "Rules"): a tool called `write_*` is that one tool, not a glob
 * over every tool whose name starts with `write_`. Every character the rules' globs treat as syntax is escaped.
 */
const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/g;

export function escapeGlob(name: string): string {
  return name.replace(GLOB_SPECIAL, '\\$&');
}

/** The one name a glob matches when it is a plain (or escaped) name; undefined when it is a pattern. */
export function globLiteral(glob: string): string | undefined {
  let literal = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] as string;
    if (char === '\\') {
      const next = glob[index + 1];
      if (next === undefined) return undefined;
      literal += next;
      index += 1;
    } else if (/[*?[\]{}()!+@]/.test(char)) {
      return undefined;
    } else {
      literal += char;
    }
  }
  return literal;
}
