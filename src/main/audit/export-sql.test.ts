import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditExportFormat } from '../../shared/audit';
import { openTempAuditLog, type TempAuditLog } from './audit-test-support';
import { AUDIT_COLUMNS_SQL, canonicalRowOf } from './audit-row';
import { csvRecord } from './csv';
import { verifyExportFile } from './export-verify';

/**
 * The export's lines are built by SQLite (export-sql.ts). These tests hold them to the previous
 * implementation — `canonicalRowOf` (JSONL) and `csvRecord` (CSV) over the stored rows — byte for byte.
 */

let target: TempAuditLog;
beforeEach(() => {
  target = openTempAuditLog('aiwb-export-sql-');
});
afterEach(() => target.close());

/** The previous implementation: every stored row through the JS writers. */
function previousLines(format: AuditExportFormat): string {
  const rows = target.db
    .prepare(`SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log ORDER BY sequence`)
    .raw()
    .all() as unknown[][];
  return rows.map((values) => (format === 'jsonl' ? `${canonicalRowOf(values)}\n` : csvRecord(values))).join('');
}

/** The export's text after its header (one line for JSONL, two records for CSV). */
async function exportedLines(format: AuditExportFormat): Promise<{ text: string; file: string }> {
  const file = path.join(target.dir, `export-${Math.random().toString(36).slice(2)}.${format}`);
  await target.log.export({ format, path: file });
  const text = fs.readFileSync(file, 'utf8');
  let start = 0;
  for (let header = 0; header < (format === 'jsonl' ? 1 : 2); header++) start = text.indexOf('\n', start) + 1;
  return { text: text.slice(start), file };
}

// Every character JSON and CSV treat specially, and some they must not.
const CONTROL = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('') + '\u007f';
const AWKWARD = [
  CONTROL,
  'quote " backslash \\ slash / comma , semicolon ;',
  'line\r\nbreaks\nand\rreturns',
  '=SUM(A1:A9)',
  '+1',
  '-2',
  '@cmd',
  '\tleading tab',
  '\rleading return',
  "'already quoted",
  'Grüße, naïve café — “quotes” ‘single’ … ½',
  '日本語のテキスト 中文 한국어',
  'עברית العربية',
  'emoji 🙂👩🏽‍💻🏳️‍🌈 and a flag 🇩🇪',
  'combining e\u0301 and zero width \u200b\u200d\ufeff',
  'separators \u2028 \u2029 and \u0085',
  'lone surrogates \ud800 x \udfff',
  '',
  ' ',
  'x'.repeat(9000),
];

const DURATIONS = [
  0,
  1,
  12,
  0.1 + 0.2,
  1 / 3,
  12.345678900000001,
  123456789.123,
  1e21,
  1e-7,
  5e-324,
  2 ** 53,
  1.7976931348623157e308,
  0.000015,
  1e20,
];

function recordVaried(): void {
  AWKWARD.forEach((text, index) => {
    target.clock.now += 1234;
    target.log.recordDecision({
      chatId: `chat-${index}`,
      exchangeId: index % 3 === 0 ? undefined : `exchange ${text.slice(0, 40)}`,
      toolCallId: `call-${index}-${text.slice(0, 20)}`,
      serverName: index % 2 === 0 ? 'Files' : text.slice(0, 30),
      toolName: index % 4 === 0 ? 'write_file' : `tool ${text.slice(0, 10)}`,
      definitionHash: index % 5 === 0 ? undefined : 'd'.repeat(64),
      decision: index % 2 === 0 ? 'allow_once' : 'deny',
      actor: 'user',
      decidedBy: text || 'nobody',
      reason: index % 2 === 0 ? undefined : text,
      args: {
        path: `/tmp/${text}`,
        apiKey: 'sk-live-0123456789abcdefghijklmnop', // redacted by key
        note: `Bearer abcdefghijklmnopqrstuvwxyz0123456789 ${text}`, // redacted by value
        [text.slice(0, 12) || 'empty']: [index, null, true, -0.5, { deep: text }],
      },
      editedArgs: index % 3 === 1 ? { path: `/tmp/edited ${text}`, password: 'hunter2' } : undefined,
    });
    target.clock.now += 1;
    target.log.recordToolResult({
      chatId: `chat-${index}`,
      toolCallId: `call-${index}`,
      serverName: 'Files',
      toolName: 'write_file',
      outcome: index % 2 === 0 ? 'success' : 'error',
      durationMs: DURATIONS[index % DURATIONS.length] as number,
      resultBytes: index * 1_000_003,
      error: index % 2 === 0 ? undefined : `failed: ${text}`,
    });
  });
}

describe('export lines built by SQLite', () => {
  it.each(['jsonl', 'csv'] as const)(
    'equal the previous %s writer byte for byte on varied rows (redacted values, unicode, control characters, nulls, doubles)',
    async (format) => {
      recordVaried();
      const { text } = await exportedLines(format);
      expect(text).toBe(previousLines(format));
      expect(text.length).toBeGreaterThan(10_000);
    },
  );

  it('still give a JSONL file that verifies on its own', async () => {
    recordVaried();
    const { file } = await exportedLines('jsonl');
    const result = await verifyExportFile(file);
    expect(result).toMatchObject({ ok: true, rowCount: AWKWARD.length * 2 });
  });

  it('equal the previous writers for random text and numbers (property)', async () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    const rows = fc.array(
      fc.record({
        reason: fc.option(text, { nil: undefined }),
        key: text,
        value: fc.oneof(text, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constant(null)),
        duration: fc.double({ min: 0, max: 1e300, noNaN: true, noDefaultInfinity: true }),
        error: fc.option(
          text.filter((value) => value.length > 0),
          { nil: undefined },
        ),
      }),
      { minLength: 1, maxLength: 20 },
    );
    await fc.assert(
      fc.asyncProperty(rows, async (sample) => {
        target.close();
        target = openTempAuditLog('aiwb-export-sql-');
        for (const [index, row] of sample.entries()) {
          target.log.recordDecision({
            chatId: 'chat',
            toolCallId: `call-${index}`,
            serverName: 'Files',
            toolName: 'read_file',
            decision: 'allow_once',
            actor: 'user',
            decidedBy: row.key || 'x',
            reason: row.reason,
            args: { [row.key]: row.value },
          });
          target.log.recordToolResult({
            chatId: 'chat',
            toolCallId: `call-${index}`,
            serverName: row.key,
            toolName: 'read_file',
            outcome: row.error === undefined ? 'success' : 'error',
            durationMs: row.duration,
            resultBytes: index,
            error: row.error,
          });
        }
        for (const format of ['jsonl', 'csv'] as const)
          expect((await exportedLines(format)).text).toBe(previousLines(format));
      }),
      { numRuns: 25, seed: 20261123 },
    );
  });
});
