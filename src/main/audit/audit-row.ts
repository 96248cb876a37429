import { hash } from 'node:crypto';
import type { AuditEntry } from '../../shared/audit';
import { canonicalJson } from '../../shared/canonical-json';
import { derivedRequester, type Requester } from './requested-by';

/** What the first row chains to. */
export const GENESIS_HASH = '0'.repeat(64);

export function sha256Hex(text: string): string {
  // The one-shot form is about four times faster than createHash() per call, which counts over a million rows.
  return hash('sha256', text, 'hex');
}

/** SHA-256 of the canonical JSON of a value: how arguments are hashed. */
export function hashOfValue(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

export type FieldType = 'text' | 'number' | 'json';

/**
 * The columns of `audit_log`, named as in `AuditEntry`. `json` columns hold canonical JSON text
 * (the redacted arguments), which is spliced into a row's canonical JSON as it is.
 */
const FIELDS = [
  ['sequence', 'sequence', 'number'],
  ['time', 'time', 'text'],
  ['kind', 'kind', 'text'],
  ['chatId', 'chat_id', 'text'],
  ['exchangeId', 'exchange_id', 'text'],
  ['toolCallId', 'tool_call_id', 'text'],
  ['serverName', 'server_name', 'text'],
  ['toolName', 'tool_name', 'text'],
  ['definitionHash', 'definition_hash', 'text'],
  ['decision', 'decision', 'text'],
  ['actor', 'actor', 'text'],
  ['decidedBy', 'decided_by', 'text'],
  ['reason', 'reason', 'text'],
  ['args', 'args', 'json'],
  ['argsHash', 'args_hash', 'text'],
  ['editedArgs', 'edited_args', 'json'],
  ['editedArgsHash', 'edited_args_hash', 'text'],
  ['outcome', 'outcome', 'text'],
  ['durationMs', 'duration_ms', 'number'],
  ['resultBytes', 'result_bytes', 'number'],
  ['error', 'error', 'text'],
  ['requestedBy', 'requested_by', 'text'],
  ['previousHash', 'previous_hash', 'text'],
  ['hash', 'hash', 'text'],
] as const satisfies readonly (readonly [keyof AuditEntry, string, FieldType])[];

/**
 * Fields left out of a row's canonical JSON when they are NULL: added after rows were written without them, so those
 * rows hash (and export) as they were written (docs/user/audit-log.md#requested-by).
 */
const OMITTED_WHEN_NULL: ReadonlySet<string> = new Set(['requestedBy']);

export type AuditField = (typeof FIELDS)[number][0];

/** Each field with its column and how its value is written, in `AUDIT_FIELDS` order. */
export const AUDIT_FIELD_COLUMNS: readonly {
  readonly name: AuditField;
  readonly column: string;
  readonly type: FieldType;
}[] = FIELDS.map(([name, column, type]) => ({ name, column, type }));

/** The field names in the order export columns and stored rows use. */
export const AUDIT_FIELDS: readonly AuditField[] = FIELDS.map(([name]) => name);

/** A row as stored: JSON columns still as text. */
export type StoredAuditRow = {
  [K in AuditField]: K extends 'args' | 'editedArgs'
    ? string | null
    : K extends 'requestedBy'
      ? Requester | null
      : AuditEntry[K];
};

/** The decision columns, empty: how a result row stores them. */
export const NO_DECISION = {
  decision: null,
  actor: null,
  decidedBy: null,
  reason: null,
  args: null,
  argsHash: null,
  editedArgs: null,
  editedArgsHash: null,
} as const satisfies Partial<StoredAuditRow>;

/** The result columns, empty: how a decision row stores them. */
export const NO_RESULT = {
  outcome: null,
  durationMs: null,
  resultBytes: null,
  error: null,
} as const satisfies Partial<StoredAuditRow>;

/** `SELECT` list that returns rows as arrays in `AUDIT_FIELDS` order (use with `.raw()`). */
export const AUDIT_COLUMNS_SQL = FIELDS.map(([, column]) => column).join(', ');

/** Positional parameters for an INSERT of every column, in `AUDIT_FIELDS` order. */
export const AUDIT_INSERT_SQL = `INSERT INTO audit_log (${AUDIT_COLUMNS_SQL}) VALUES (${FIELDS.map(() => '?').join(', ')})`;

const INDEX: Readonly<Record<AuditField, number>> = Object.fromEntries(
  AUDIT_FIELDS.map((name, index) => [name, index]),
) as Record<AuditField, number>;
export const SEQUENCE_INDEX = INDEX.sequence;
export const HASH_INDEX = INDEX.hash;
export const PREVIOUS_HASH_INDEX = INDEX.previousHash;

/**
 * Canonical JSON is written field by field in sorted key order, for speed (a million rows are hashed
 * in a verification). The property tests prove it equals `canonicalJson` of the same entry.
 */
interface Writer {
  /** `{"name":` or `,"name":`, in sorted key order. */
  prefixes: string[];
  /** Where each field sits in a stored row. */
  indexes: number[];
  json: boolean[];
  /** Left out, key and all, when NULL (`OMITTED_WHEN_NULL`). */
  omitNull: boolean[];
}

function writerFor(fields: readonly (readonly [AuditField, string, FieldType])[]): Writer {
  const sorted = fields
    .map(([name, , type]) => ({ name, type, index: AUDIT_FIELDS.indexOf(name) }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return {
    prefixes: sorted.map((field, position) => `${position === 0 ? '{' : ','}${JSON.stringify(field.name)}:`),
    indexes: sorted.map((field) => field.index),
    json: sorted.map((field) => field.type === 'json'),
    omitNull: sorted.map((field) => OMITTED_WHEN_NULL.has(field.name)),
  };
}

const ROW_WRITER = writerFor(FIELDS);
const CONTENT_WRITER = writerFor(FIELDS.filter(([name]) => name !== 'hash'));

/** Characters JSON.stringify would escape (and surrogates, which it may): text without them is quoted as it is. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function writeCanonical(values: readonly unknown[], { prefixes, indexes, json, omitNull }: Writer): string {
  let text = '';
  for (let position = 0; position < prefixes.length; position++) {
    const value = values[indexes[position] as number];
    // Never the first key in sorted order, so its prefix (with the comma) goes with it.
    if ((value === null || value === undefined) && omitNull[position]) continue;
    text += prefixes[position] as string;
    if (value === null || value === undefined) text += 'null';
    else if (json[position]) text += value as string;
    else if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) text += `"${value}"`;
    else text += JSON.stringify(value);
  }
  return `${text}}`;
}

/** Canonical JSON of a stored row (as a `.raw()` array) without its hash: what the hash is taken over. */
export function canonicalContentOf(values: readonly unknown[]): string {
  return writeCanonical(values, CONTENT_WRITER);
}

/** Canonical JSON of a whole stored row, hash included: one line of a JSONL export. */
export function canonicalRowOf(values: readonly unknown[]): string {
  return writeCanonical(values, ROW_WRITER);
}

/** The hash a stored row (as a `.raw()` array) should carry. */
export function hashOfStoredRow(values: readonly unknown[]): string {
  return sha256Hex(canonicalContentOf(values));
}

export function rowValues(row: StoredAuditRow): unknown[] {
  return AUDIT_FIELDS.map((name) => row[name]);
}

/**
 * Seals a row into the chain: its values in column order, with its hash over them written into the row and the values.
 * The log appends every row so (sqlite-audit-log.ts), and the benchmarks' fixtures build their logs the same way.
 */
export function sealRow(row: StoredAuditRow): unknown[] {
  const values = rowValues(row);
  row.hash = hashOfStoredRow(values);
  values[HASH_INDEX] = row.hash;
  return values;
}

/** Rows sealed one after another, each chained to the one before (the first to `previousHash`): a whole log at once. */
export function* sealedChain(
  rows: Iterable<Omit<StoredAuditRow, 'previousHash' | 'hash'>>,
  previousHash: string = GENESIS_HASH,
): Generator<unknown[]> {
  for (const content of rows) {
    const row: StoredAuditRow = { ...content, previousHash, hash: '' };
    yield sealRow(row);
    previousHash = row.hash;
  }
}

export function storedRowOf(values: readonly unknown[]): StoredAuditRow {
  return Object.fromEntries(AUDIT_FIELDS.map((name, index) => [name, values[index]])) as StoredAuditRow;
}

/** The entry a stored row shows as; raises when its JSON columns were altered into something unreadable. */
export function entryOf(row: StoredAuditRow): AuditEntry {
  const { requestedBy, ...rest } = row;
  // A row written before the column has NULL there: its requester is derived from what its hash covers.
  const requester = requestedBy ?? derivedRequester(row.kind, row.toolCallId);
  return {
    ...rest,
    ...(requester === null ? {} : { requestedBy: requester }),
    args: parseStoredJson(row, 'args'),
    editedArgs: parseStoredJson(row, 'editedArgs'),
  };
}

function parseStoredJson(row: StoredAuditRow, field: 'args' | 'editedArgs'): unknown {
  const text = row[field];
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(
      `Audit row ${row.sequence} has unreadable ${field} (the log was changed outside AI Workbench; run audit verify): ${(error as Error).message}`,
      { cause: error },
    );
  }
}
