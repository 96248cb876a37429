import path from 'node:path';

/**
 * The other spellings of a path an argument may hold (docs/user/approvals.md, "How paths are matched"): what a rule's
 * path condition is also tested against. Pure text work — nothing is looked up on disk, so a symbolic link the
 * server follows is not seen; the kernel's own aliases of the root and the working folder are.
 *
 * - surrounding whitespace is trimmed;
 * - a `file:` URL becomes its path, percent-decoded (`file:///etc/passwd`, `file://localhost/etc/passwd`);
 * - backslashes become slashes and a drive letter is upper-cased (`c:\Windows` → `C:/Windows`);
 * - `//`, `.` and `..` segments are resolved (`/home/me/../../etc/passwd` → `/etc/passwd`);
 * - `/proc/self/root`, `/proc/thread-self/root`, `/proc/<pid>/root` (and `/proc/<pid>/task/<tid>/root`) are the root:
 *   `/proc/self/root/etc/passwd` → `/etc/passwd`; `/proc/…/cwd/x` is `x` relative to the server's working folder;
 * - a relative path is relative to the server's working folder, which the rules do not know: one that climbs out of
 *   it (`../../etc/passwd`) may reach the root, so it is also matched as `/etc/passwd`.
 *
 * Empty when the text has no other spelling. Texts that are URLs of another scheme (`https://…`) have none.
 */
export function pathForms(text: string): readonly string[] {
  if (!mayHaveForms(text)) return NONE;
  const forms = new Set<string>();
  let value = text.trim();
  forms.add(value);
  if (/^file:/i.test(value)) {
    const fromUrl = fileUrlPath(value);
    if (fromUrl === null) return without(forms, text);
    value = fromUrl;
    forms.add(value);
  } else if (/^[a-z][a-z0-9+.-]+:/i.test(value) && !/^[a-z]:/i.test(value)) {
    return without(forms, text);
  }
  if (value.includes('\\')) {
    value = value.replaceAll('\\', '/');
    forms.add(value);
  }
  if (/^[a-z]:/.test(value)) {
    value = value[0]?.toUpperCase() + value.slice(1);
    forms.add(value);
  }
  // As Node's path module spells it (`.//` → `./`), before the collapse below drops a trailing `./` altogether.
  forms.add(normalise(value));
  // The kernel resolves an alias before the `..` after it: strip aliases before `..` is resolved, and again after.
  value = dealias(collapse(value));
  forms.add(value);
  value = dealias(normalise(value));
  forms.add(value);
  if (value.startsWith('../') || value === '..') {
    forms.add(path.posix.normalize(`/${value}`));
  }
  return without(forms, text);
}

const NONE: readonly string[] = [];

/** Cheap: whether any rule above could change the text. Most arguments are plain paths or words. */
function mayHaveForms(text: string): boolean {
  if (text.length === 0) return false;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  return (
    first === 46 /* . */ ||
    first <= 32 ||
    last <= 32 ||
    text.includes('//') ||
    text.includes('/.') ||
    text.includes('\\') ||
    text.includes(':') ||
    text.startsWith('/proc/')
  );
}

function without(forms: Set<string>, text: string): readonly string[] {
  forms.delete(text);
  forms.delete('');
  return forms.size === 0 ? NONE : [...forms];
}

/** `//` → `/` and `.` segments gone, `..` kept. */
function collapse(value: string): string {
  let collapsed = value.replace(/\/{2,}/g, '/');
  let before;
  do {
    before = collapsed;
    collapsed = collapsed.replace(/\/\.(?=\/|$)/g, '').replace(/^\.\//, '');
  } while (collapsed !== before);
  return collapsed === '' ? (value.startsWith('/') ? '/' : '.') : collapsed;
}

/** Strips the root and working-folder aliases of /proc, however many are stacked. */
function dealias(value: string): string {
  let current = value;
  for (let step = 0; step < 8; step++) {
    const next = withoutProcAlias(current);
    if (next === current) return current;
    current = collapse(next);
  }
  return current;
}

function normalise(value: string): string {
  const normalised = path.posix.normalize(value);
  // `path.posix.normalize` keeps a leading `//` (POSIX leaves its meaning open; Linux reads it as `/`).
  return normalised.startsWith('//') ? normalised.replace(/^\/+/, '/') : normalised;
}

/** `file:///etc/passwd` → `/etc/passwd`; `file:///C:/x` → `C:/x`; null for a URL with another host, or not a URL. */
function fileUrlPath(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'file:' || (url.host !== '' && url.host !== 'localhost')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  return /^\/[a-z]:/i.test(decoded) ? decoded.slice(1) : decoded;
}

const PROC_ALIAS = /^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(root|cwd)(?=\/|$)/;

/** `/proc/self/root/etc` → `/etc`; `/proc/self/cwd/x` → `x` (relative to the working folder). */
function withoutProcAlias(value: string): string {
  const match = PROC_ALIAS.exec(value);
  if (!match) return value;
  const rest = value.slice(match[0].length);
  if (match[1] === 'root') return rest === '' ? '/' : rest;
  const relative = rest.replace(/^\/+/, '');
  return relative === '' ? '.' : relative;
}
