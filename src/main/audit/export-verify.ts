import fs from 'node:fs';
import readline from 'node:readline';
import { z } from 'zod';
import { AuditHeadSchema, type AuditProblem, type AuditVerifyResult } from '../../shared/audit';
import { canonicalJson } from '../../shared/canonical-json';
import { EXPORT_MARKER, EXPORT_VERSION } from './audit-export';
import type { AuditProgressListener } from './audit-log';
import { GENESIS_HASH, sha256Hex } from './audit-row';
import { ChainChecker, type ChainLink } from './chain-check';

const HeaderSchema = z.object({
  [EXPORT_MARKER]: z.literal(EXPORT_VERSION),
  format: z.literal('jsonl'),
  exportedAt: z.string(),
  genesisHash: z.literal(GENESIS_HASH),
  head: AuditHeadSchema,
  rowCount: z.number().int().nonnegative(),
});

/** What each line must at least hold to be placed in the chain. */
const LineSchema = z.looseObject({
  sequence: z.number().int(),
  hash: z.string(),
  previousHash: z.string(),
});

/**
 * Checks a JSONL export on its own, without the database: every line's hash is recomputed from its
 * content, every line must chain to the one before, and the last line and the count must be what the
 * header recorded. Reports the first problem with its line number. Reads the file as a stream.
 */
export async function verifyExportFile(file: string, onProgress?: AuditProgressListener): Promise<AuditVerifyResult> {
  const lines = readLines(file);
  try {
    const first = await lines.next();
    if (first.done) return malformed(0, 1, 'The file is empty: an export starts with its header line.');
    const header = parseHeader(first.value);
    if (typeof header === 'string')
      return malformed(0, 1, `The first line is not an AI Workbench JSONL audit export header (${header}).`);
    const { head, rowCount } = header;
    const checker = new ChainChecker({ head });
    let lineNumber = 1;
    let rows = 0;
    for await (const text of lines) {
      lineNumber++;
      const link = linkOfLine(text, lineNumber);
      if ('problem' in link) return { ok: false, rowCount: checker.verified, problem: link.problem };
      rows++;
      if (!checker.push(link)) break;
      if (rows % 16_384 === 0) onProgress?.(rows, rowCount);
    }
    const problem = await checker.finish({ sequenceOfHash: (hash) => findSequenceOfHash(file, hash) });
    if (problem) return { ok: false, rowCount: checker.verified, problem };
    if (rows !== rowCount) {
      return {
        ok: false,
        rowCount: checker.verified,
        problem: {
          sequence: checker.last.sequence,
          kind: 'head-mismatch',
          message: `The header says ${rowCount} rows; the file holds ${rows}.`,
          line: 1,
        },
      };
    }
    onProgress?.(rows, rowCount);
    return { ok: true, rowCount: rows, head: checker.last };
  } finally {
    await lines.return?.();
  }
}

function readLines(file: string): AsyncIterableIterator<string> {
  const input = fs.createReadStream(file, { encoding: 'utf8' });
  return readline.createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
}

/** The header, or what is wrong with it. */
function parseHeader(text: string): z.infer<typeof HeaderSchema> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  const parsed = HeaderSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  return parsed.error.issues
    .map((issue) => `${issue.path.map(String).join('.') || 'header'}: ${issue.message}`)
    .join('; ');
}

function linkOfLine(text: string, line: number): ChainLink | { problem: AuditProblem } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      problem: {
        sequence: 0,
        kind: 'malformed',
        message: `Line ${line} is not JSON: ${(error as Error).message}`,
        line,
      },
    };
  }
  const shape = LineSchema.safeParse(parsed);
  if (!shape.success) {
    return {
      problem: {
        sequence: 0,
        kind: 'malformed',
        message: `Line ${line} is not an audit row: ${shape.error.issues[0]?.message ?? 'unexpected shape'}`,
        line,
      },
    };
  }
  const { hash, ...content } = shape.data;
  const hashOf = (sequence: number): string => sha256Hex(canonicalJson({ ...content, sequence }));
  return {
    sequence: content.sequence,
    hash,
    previousHash: content.previousHash,
    computedHash: hashOf(content.sequence),
    hashWithSequence: hashOf,
    line,
  };
}

/** A second pass over the file, needed only to tell a reordered row from an edited one. */
async function findSequenceOfHash(file: string, hash: string): Promise<number | null> {
  const needle = `"hash":${JSON.stringify(hash)}`;
  for await (const text of readLines(file)) {
    if (!text.includes(needle)) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue; // a line that is not JSON holds no row to find; the first pass reports it where it stands
    }
    const parsed = LineSchema.safeParse(value);
    if (parsed.success && parsed.data.hash === hash) return parsed.data.sequence;
  }
  return null;
}

function malformed(rowCount: number, line: number, message: string): AuditVerifyResult {
  return { ok: false, rowCount, problem: { sequence: 0, kind: 'malformed', message, line } };
}
