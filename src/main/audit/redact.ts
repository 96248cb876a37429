/**
 * Redaction of tool-call arguments before they are stored in the audit log. What is stored is for
 * people to read; what proves the call is the keyed hash of the original arguments, stored beside it (args-hash.ts).
 * The rules lean towards hiding too much: a hidden value still shows in the hash, a leaked one stays leaked.
 */

export const REDACTED = '[REDACTED]';

/** Longer string values are cut when stored (the hash still covers them whole). */
export const STORED_STRING_MAX_LENGTH = 8192;

/** Keys whose values are secrets, wherever they appear: `apiKey`, `X-Auth-Token`, `session_id`, `db_password`… */
const SECRET_KEY = /key|token|secret|passw(?:or)?d|passphrase|auth|credential|cookie|session/i;

/** Secrets recognised by their form, wherever they appear inside a string. */
const SECRET_PATTERNS: readonly { pattern: RegExp; replacement: string }[] = [
  {
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    replacement: REDACTED,
  },
  // Authorization header values: `Bearer abc…`, `Basic dXNlcjpwYXNz`.
  { pattern: /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{6,}/gi, replacement: `$1$2${REDACTED}` },
  // Provider keys: OpenAI and Anthropic (`sk-…`, `sk-ant-…`), GitHub, Slack, AWS, Google, Stripe, npm.
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replacement: REDACTED },
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, replacement: REDACTED },
  { pattern: /\bxox[abposre]-[A-Za-z0-9-]{8,}/g, replacement: REDACTED },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: REDACTED },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replacement: REDACTED },
  { pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, replacement: REDACTED },
  { pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, replacement: REDACTED },
  // JSON Web Tokens: base64url header and payload, both JSON objects (`eyJ`), and a signature.
  { pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, replacement: REDACTED },
  // Passwords in URLs (`https://user:secret@host`) and secret-named query parameters (capability URLs).
  { pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, replacement: `$1${REDACTED}@` },
  {
    pattern:
      /([?&;][^=&;#\s]*(?:key|token|secret|passw(?:or)?d|auth|session|sig|signature|credential)[^=&;#\s]*=)[^&;#\s]+/gi,
    replacement: `$1${REDACTED}`,
  },
];

/** Runs of characters that base64, base64url and hex tokens are made of. */
const TOKEN_RUN = /[A-Za-z0-9+/=_-]{32,}/g;
const HEX = /^[0-9a-fA-F]+$/;

/** Replaces secret-looking parts of a text (tokens, keys, passwords in URLs) with `[REDACTED]`. */
export function redactText(text: string): string {
  let result = text;
  for (const { pattern, replacement } of SECRET_PATTERNS) result = result.replace(pattern, replacement);
  return result.replace(TOKEN_RUN, (run) => (looksLikeToken(run) ? REDACTED : run));
}

/** Word-like chunks (`Word`, `word`): most of the letters of an identifier or a path. */
const WORD_CHUNK = /[A-Z]?[a-z]{3,}/g;
const LETTER = /[A-Za-z]/g;
/** The fifty most frequent letter pairs of English text; random letters hit them one time in fourteen. */
const COMMON_BIGRAMS = new Set(
  'th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur'.split(
    ' ',
  ),
);

/**
 * Long hex (≥ 32 digits: API keys, digests), or a long run of mixed case that is not made of words.
 * "Made of words": at least 70% of its letters in word-like chunks and at least 25% of its letter pairs
 * common English pairs. Measured through redactText over 2,000,000 random base64/base64url tokens of
 * 24–64 bytes: 2 pass as words (one in a million); over ~2,900 long mixed-case runs taken from the sources
 * in node_modules (identifiers, paths, message keys): 3.7% are redacted, many of them random anyway.
 */
function looksLikeToken(run: string): boolean {
  const body = run.replace(/=+$/, '');
  if (body.length < 32) return false;
  if (HEX.test(body)) return /[0-9]/.test(body) && /[a-fA-F]/.test(body);
  if (!/[a-z]/.test(body) || !/[A-Z]/.test(body)) return false;
  return !(wordLetterShare(body) >= 0.7 && commonBigramShare(body) >= 0.25);
}

function wordLetterShare(text: string): number {
  const letters = text.match(LETTER)?.length ?? 0;
  if (letters === 0) return 0;
  let inWords = 0;
  for (const match of text.matchAll(WORD_CHUNK)) inWords += match[0].length;
  return inWords / letters;
}

function commonBigramShare(text: string): number {
  const lower = text.toLowerCase();
  let pairs = 0;
  let common = 0;
  for (let index = 1; index < lower.length; index++) {
    const pair = lower.slice(index - 1, index + 1);
    if (!/^[a-z]{2}$/.test(pair)) continue;
    pairs++;
    if (COMMON_BIGRAMS.has(pair)) common++;
  }
  return pairs === 0 ? 0 : common / pairs;
}

/**
 * A copy of `value` fit to store: values under secret-named keys replaced at any depth, secret-looking
 * text replaced inside every string, long strings cut. Keys are kept; the shape is kept.
 */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return truncate(redactText(value));
  if (Array.isArray(value)) return value.map((item) => redactValue(item));
  if (value !== null && typeof value === 'object') {
    const entries: [string, unknown][] = [];
    const used = new Set<string>();
    for (const [key, item] of Object.entries(value)) {
      const secret = SECRET_KEY.test(key);
      entries.push([
        uniqueKey(secret ? key : truncate(redactText(key)), used),
        secret && item !== null && item !== undefined ? REDACTED : redactValue(item),
      ]);
    }
    // fromEntries defines own properties, so a `__proto__` key stays a key and never becomes a prototype.
    return Object.fromEntries(entries);
  }
  return value;
}

/** Two keys redacted to the same text stay two entries: `[REDACTED]`, `[REDACTED] (2)`. */
function uniqueKey(key: string, used: Set<string>): string {
  let candidate = key;
  for (let index = 2; used.has(candidate); index++) candidate = `${key} (${index})`;
  used.add(candidate);
  return candidate;
}

function truncate(text: string): string {
  if (text.length <= STORED_STRING_MAX_LENGTH) return text;
  // Never cut between the two halves of a surrogate pair.
  let end = STORED_STRING_MAX_LENGTH;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…[${text.length - end} more characters]`;
}
