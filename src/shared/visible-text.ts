/**
 * A server's own words shown beside ours (a declined page's error, docs/user/server-requests.md): as text, never
 * markup, with what could hide or reorder text made visible — C0 controls but tab and newline, DEL, C1 controls and
 * the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) become `\u{…}` — and cut to `limit`
 * characters with the length left said.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

export function visibleText(text: string, limit = 2_000): string {
  const shown = text.length > limit ? text.slice(0, limit) : text;
  const escaped = shown.replace(HIDDEN, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}}`);
  return text.length > limit ? `${escaped}… (${(text.length - limit).toLocaleString('en')} more characters)` : escaped;
}
