/**
 * CSV as RFC 4180 writes it: records end in CRLF; a field that holds a comma, a double quote, CR or LF
 * is put in double quotes, with its double quotes doubled.
 *
 * Text that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR; OWASP's
 * "CSV injection") gets a leading `'`. Tool arguments come from a model and can carry such text on
 * purpose. Text that already starts with `'` gets one too, so `unescapeCsvText` restores every value.
 */
export const CSV_LINE_END = '\r\n';

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r']/;

export function csvText(text: string): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A field from a stored value: null as an empty field, numbers as JSON writes them, text escaped. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return JSON.stringify(value);
  return csvText(String(value));
}

export function csvRecord(values: readonly unknown[]): string {
  return values.map(csvField).join(',') + CSV_LINE_END;
}

/** The value a reader gets back from a text field `csvText` wrote (after CSV unquoting). */
export function unescapeCsvText(field: string): string {
  return field.startsWith("'") ? field.slice(1) : field;
}
