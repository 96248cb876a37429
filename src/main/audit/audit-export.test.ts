import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditEntrySchema, type AuditEntry } from '../../shared/audit';
import { canonicalJson } from '../../shared/canonical-json';
import { WorkbenchError } from '../errors';
import { decisionRecord, fillLog, openTempAuditLog, type TempAuditLog } from './audit-test-support';
import { AUDIT_FIELDS, GENESIS_HASH } from './audit-row';
import { csvText, unescapeCsvText } from './csv';
import { verifyExportFile } from './export-verify';

let target: TempAuditLog;
let outDir: string;

beforeEach(() => {
  target = openTempAuditLog();
  outDir = path.join(target.dir, 'exports');
  fs.mkdirSync(outDir);
});

afterEach(() => target.close());

function allEntries(): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = target.log.query({ limit: 500, ...(cursor ? { cursor } : {}) });
    entries.push(...page.entries);
    if (page.nextCursor === null) return entries.reverse();
    cursor = page.nextCursor;
  }
}

/** RFC 4180 parser for the round trip: quoted fields with doubled quotes, CRLF record ends. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"' && field === '') {
      let end = index + 1;
      for (;;) {
        const quote = text.indexOf('"', end);
        if (quote < 0) throw new Error('unterminated quoted field');
        if (text[quote + 1] === '"') {
          field += text.slice(end, quote + 1);
          end = quote + 2;
          continue;
        }
        field += text.slice(end, quote);
        index = quote + 1;
        break;
      }
      continue;
    }
    if (char === ',') {
      record.push(field);
      field = '';
      index++;
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 2;
    } else {
      if (char === '\n' || char === '\r') throw new Error(`bare line break outside quotes at ${index}`);
      field += char;
      index++;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('the last record does not end in CRLF');
  return records;
}

const NUMERIC = new Set(['sequence', 'durationMs', 'resultBytes']);
const JSON_FIELDS = new Set(['args', 'editedArgs']);

/** A CSV data record back to an entry (empty = null: CSV cannot tell null from empty text, so the samples avoid empty text). */
function entryOfCsv(header: string[], record: string[]): AuditEntry {
  const entry: Record<string, unknown> = {};
  header.forEach((name, index) => {
    const field = record[index] ?? '';
    if (field === '') entry[name] = null;
    else if (NUMERIC.has(name)) entry[name] = Number(field);
    else if (JSON_FIELDS.has(name)) entry[name] = JSON.parse(unescapeCsvText(field));
    else entry[name] = unescapeCsvText(field);
  });
  return AuditEntrySchema.parse(entry);
}

describe('audit.export to JSONL', () => {
  it('writes the header with the chain head and count, then every row as canonical JSON, and verifies on its own', async () => {
    fillLog(target, 30);
    const file = path.join(outDir, 'audit.jsonl');
    const progress: [number, number][] = [];
    const result = await target.log.export({
      format: 'jsonl',
      path: file,
      onProgress: (done, total) => progress.push([done, total]),
    });
    const head = target.log.head();
    expect(result).toEqual({ path: file, format: 'jsonl', rowCount: 30, head, bytes: fs.statSync(file).size });
    expect(progress.at(-1)).toEqual([30, 30]);

    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    const header = JSON.parse(lines[0] as string);
    expect(header).toEqual({
      aiWorkbenchAuditExport: 1,
      format: 'jsonl',
      exportedAt: expect.any(String),
      genesisHash: GENESIS_HASH,
      head,
      rowCount: 30,
    });
    const rows = lines.slice(1, -1).map((line) => JSON.parse(line) as unknown);
    expect(rows).toEqual(allEntries());
    lines.slice(1, -1).forEach((line) => expect(line).toBe(canonicalJson(JSON.parse(line))));

    expect(await verifyExportFile(file)).toEqual({ ok: true, rowCount: 30, head });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('an empty log exports a header naming the genesis hash, and verifies', async () => {
    const file = path.join(outDir, 'empty.jsonl');
    expect(await target.log.export({ format: 'jsonl', path: file })).toMatchObject({
      rowCount: 0,
      head: { sequence: 0, hash: GENESIS_HASH },
    });
    expect(await verifyExportFile(file)).toEqual({ ok: true, rowCount: 0, head: { sequence: 0, hash: GENESIS_HASH } });
  });

  it('verifyExportFile names the line of an edited, deleted, swapped or cut row, and an edited header', async () => {
    fillLog(target, 12);
    const file = path.join(outDir, 'audit.jsonl');
    await target.log.export({ format: 'jsonl', path: file });
    const original = fs.readFileSync(file, 'utf8').split('\n');
    const check = async (lines: string[]): Promise<unknown> => {
      const copy = path.join(outDir, 'tampered.jsonl');
      fs.writeFileSync(copy, lines.join('\n'));
      const result = await verifyExportFile(copy);
      expect(result.ok).toBe(false);
      return result.ok ? null : result.problem;
    };

    const edited = [...original];
    edited[5] = (edited[5] as string).replace('"kind":"', '"kind":"x');
    expect(await check(edited)).toMatchObject({ sequence: 5, kind: 'content-changed', line: 6 });

    const deleted = original.filter((_, index) => index !== 7);
    expect(await check(deleted)).toMatchObject({ sequence: 7, kind: 'missing', line: 8 });

    const swapped = [...original];
    [swapped[3], swapped[4]] = [swapped[4] as string, swapped[3] as string];
    expect(await check(swapped)).toMatchObject({ sequence: 3, kind: 'reordered', line: 4 });

    const cut = original.slice(0, -3).concat('');
    expect(await check(cut)).toMatchObject({ sequence: 11, kind: 'missing' });

    const header = JSON.parse(original[0] as string) as { rowCount: number };
    expect(await check([JSON.stringify({ ...header, rowCount: 13 }), ...original.slice(1)])).toMatchObject({
      kind: 'head-mismatch',
      line: 1,
    });
    expect(await check(['not json', ...original.slice(1)])).toMatchObject({ kind: 'malformed', line: 1 });
    expect(await check([original[0] as string, '{"oops":', ...original.slice(2)])).toMatchObject({
      kind: 'malformed',
      line: 2,
    });
  });
});

describe('audit.export to CSV', () => {
  it('writes RFC 4180 CSV whose records round-trip to the entries, behind a header record with the chain head', async () => {
    fillLog(target, 20);
    target.log.recordDecision(
      decisionRecord(100, {
        reason: 'comma, "quotes", and\r\na line break',
        args: { text: '=HYPERLINK("http://evil")', note: "'already quoted", list: [1, 'two'] },
      }),
    );
    target.log.recordDecision(decisionRecord(101, { toolName: '@sum', decidedBy: '-1 rule', reason: '+plus\ttab' }));
    const file = path.join(outDir, 'audit.csv');
    const result = await target.log.export({ format: 'csv', path: file });
    expect(result).toMatchObject({ rowCount: 22, head: target.log.head() });

    const text = fs.readFileSync(file, 'utf8');
    const [meta, header, ...records] = parseCsv(text);
    expect(meta).toEqual([
      '# aiWorkbenchAuditExport=1',
      'format=csv',
      expect.stringMatching(/^exportedAt=\d{4}-/),
      `headSequence=${target.log.head().sequence}`,
      `headHash=${target.log.head().hash}`,
      'rowCount=22',
      `genesisHash=${GENESIS_HASH}`,
    ]);
    expect(header).toEqual(AUDIT_FIELDS);
    expect(records.map((record) => entryOfCsv(header as string[], record))).toEqual(allEntries());
    // No field a spreadsheet would run as a formula.
    for (const record of records) for (const field of record) expect(field).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('csvText escapes and unescapes any text, formulas included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (value) => {
        const written = csvText(value);
        const [[field]] = parseCsv(`${written}\r\n`) as [[string]];
        expect(unescapeCsvText(field)).toBe(value);
        expect(field).not.toMatch(/^[=+\-@\t\r]/);
      }),
      { numRuns: 500 },
    );
  });
});

describe('where an export may go', () => {
  async function refusal(request: Parameters<typeof target.log.export>[0]): Promise<WorkbenchError> {
    try {
      await target.log.export(request);
    } catch (error) {
      expect(error).toBeInstanceOf(WorkbenchError);
      return error as WorkbenchError;
    }
    throw new Error('expected the export to be refused');
  }

  it('refuses a relative path, a wrong extension, a missing folder, and anywhere in the data folder', async () => {
    fillLog(target, 2);
    expect((await refusal({ format: 'jsonl', path: 'audit.jsonl' })).message).toMatch(/must be absolute/);
    expect((await refusal({ format: 'jsonl', path: path.join(outDir, 'audit.csv') })).message).toMatch(
      /must end in \.jsonl/,
    );
    expect((await refusal({ format: 'csv', path: path.join(outDir, '.bashrc') })).message).toMatch(/must end in \.csv/);
    expect((await refusal({ format: 'csv', path: path.join(outDir, 'nope', 'audit.csv') })).message).toMatch(
      /folder does not exist/,
    );
    for (const inside of [
      path.join(target.dataDir, 'audit.jsonl'),
      `${target.file}-wal.jsonl`,
      path.join(target.dataDir, '..', 'data', 'x.jsonl'),
    ]) {
      const error = await refusal({ format: 'jsonl', path: inside });
      expect(error.code).toBe('invalid_input');
      expect(error.message).toMatch(/inside the data folder/);
    }
    // Through a symbolic link that points into the data folder: still refused.
    const link = path.join(outDir, 'sneaky');
    fs.symlinkSync(target.dataDir, link);
    expect((await refusal({ format: 'jsonl', path: path.join(link, 'audit.jsonl') })).message).toMatch(
      /inside the data folder/,
    );
    expect(fs.readdirSync(target.dataDir).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
  });

  it('replaces an existing file only with overwrite, and leaves no partial file behind', async () => {
    fillLog(target, 3);
    const file = path.join(outDir, 'audit.jsonl');
    fs.writeFileSync(file, 'keep me');
    const error = await refusal({ format: 'jsonl', path: file });
    expect(error.code).toBe('already_exists');
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
    await target.log.export({ format: 'jsonl', path: file, overwrite: true });
    expect(await verifyExportFile(file)).toMatchObject({ ok: true, rowCount: 3 });
    expect(fs.readdirSync(outDir)).toEqual(['audit.jsonl']);
  });

  it('a failing export raises and removes its temporary file', async () => {
    fillLog(target, 3);
    const file = path.join(outDir, 'audit.jsonl');
    const failing = target.log.export({
      format: 'jsonl',
      path: file,
      onProgress: () => {
        throw new Error('listener broke');
      },
    });
    await expect(failing).rejects.toThrow('listener broke');
    expect(fs.readdirSync(outDir)).toEqual([]);
  });
});
