import type { AuditExportFormat } from '../../shared/audit';
import { AUDIT_FIELD_COLUMNS, type AuditField } from './audit-row';

/**
 * The export's lines, built by SQLite inside the query: the JS side only joins three values per row
 * and writes them. Fetching 23 columns into JS values and formatting them was most of an export's CPU.
 *
 * Every column but one is formatted exactly as the JS writers did (`canonicalRowOf`, `csvRecord`):
 * the table is STRICT, so text columns hold text or NULL and integer columns integers; `json_quote`
 * escapes text the way JSON.stringify does; the JSON columns (arguments) hold canonical JSON text and
 * are spliced in as they are. The exception is `duration_ms`, a REAL: SQLite prints doubles its own way
 * (`12.0`, `0.33333333333333332`), so it comes back as a number and JS prints it (JSON.stringify) between
 * the text before it and the text after it. Tests prove the bytes equal the JS writers' on varied rows.
 */
export interface ExportLineQuery {
  /** Rows of `[before, durationMs, after]`, in sequence order, through the bound sequence. */
  readonly sql: string;
  /** What a null duration is written as. */
  readonly nullDuration: string;
}

const SPLIT_FIELD: AuditField = 'durationMs';

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** JSON of one column: canonical JSON text as stored, or json_quote (text, integers and null). */
function jsonValue(column: string, type: string): string {
  return type === 'json' ? `ifnull(${column}, 'null')` : `json_quote(${column})`;
}

/** One CSV field, as `csvField` writes it: null empty, formula-like text behind a `'`, quoted when it holds `",CR LF`. */
function csvValue(column: string, type: string): string {
  if (type === 'number') return `ifnull(${column}, '')`;
  const prefix = `CASE WHEN substr(${column}, 1, 1) IN ('=', '+', '-', '@', char(9), char(13), '''') THEN '''' ELSE '' END`;
  const needsQuotes = `instr(${column}, '"') OR instr(${column}, ',') OR instr(${column}, char(13)) OR instr(${column}, char(10))`;
  return `CASE WHEN ${column} IS NULL THEN '' WHEN ${needsQuotes} THEN '"' || ${prefix} || replace(${column}, '"', '""') || '"' ELSE ${prefix} || ${column} END`;
}

/** SQL pieces joined with `||`; a piece is an SQL expression. */
function concat(pieces: readonly string[]): string {
  return pieces.length === 0 ? "''" : pieces.join(' || ');
}

function jsonlQuery(): ExportLineQuery {
  // Canonical JSON: keys in sorted order.
  const sorted = [...AUDIT_FIELD_COLUMNS].sort((a, b) => (a.name < b.name ? -1 : 1));
  const before: string[] = [];
  const after: string[] = [];
  let target = before;
  sorted.forEach((field, position) => {
    // A field added after rows were written without it is left out, key and all, where it is NULL (audit-row.ts).
    if (field.name === 'requestedBy') {
      target.push(
        `CASE WHEN ${field.column} IS NULL THEN '' ELSE ${literal(`,${JSON.stringify(field.name)}:`)} || json_quote(${field.column}) END`,
      );
      return;
    }
    target.push(literal(`${position === 0 ? '{' : ','}${JSON.stringify(field.name)}:`));
    if (field.name === SPLIT_FIELD) target = after;
    else target.push(jsonValue(field.column, field.type));
  });
  after.push(literal('}\n'));
  return { sql: select(concat(before), concat(after)), nullDuration: 'null' };
}

function csvQuery(): ExportLineQuery {
  const before: string[] = [];
  const after: string[] = [];
  let target = before;
  AUDIT_FIELD_COLUMNS.forEach((field, position) => {
    if (position > 0) target.push("','");
    if (field.name === SPLIT_FIELD) target = after;
    else target.push(csvValue(field.column, field.type));
  });
  after.push('char(13, 10)');
  return { sql: select(concat(before), concat(after)), nullDuration: '' };
}

function select(before: string, after: string): string {
  const duration = AUDIT_FIELD_COLUMNS.find((field) => field.name === SPLIT_FIELD)?.column as string;
  return `SELECT ${before}, ${duration}, ${after} FROM audit_log WHERE sequence <= ? ORDER BY sequence`;
}

const QUERIES: Record<AuditExportFormat, ExportLineQuery> = { jsonl: jsonlQuery(), csv: csvQuery() };

export function exportLineQuery(format: AuditExportFormat): ExportLineQuery {
  return QUERIES[format];
}

/** One row of the query as its line. */
export function joinExportLine(row: readonly unknown[], nullDuration: string): string {
  const duration = row[1];
  return (row[0] as string) + (duration === null ? nullDuration : JSON.stringify(duration)) + (row[2] as string);
}
