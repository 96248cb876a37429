import type { KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { z } from 'zod';
import type { AuditProblem } from '../../../shared/audit';
import type { AuditVerifyAgainstResult, ReceivedSummary } from '../../../shared/audit-shipping';
import { canonicalJson } from '../../../shared/canonical-json';
import { WorkbenchError } from '../../errors';
import type { Database } from '../../storage/database';
import type { AuditLog } from '../audit-log';
import { sha256Hex } from '../audit-row';
import { parseReceivedLine } from './received-rows';

/**
 * The local chain checked against what a collector received (docs/user/audit-shipping.md). A person who owns the
 * machine can truncate the log or recompute the whole chain so that `audit verify` passes; they cannot change what was
 * already shipped. So every row the collector holds must still be in the local log, with the same hash.
 */
export interface ReceivedVerifier {
  /**
   * Reads the file of shipped rows (JSONL, or an rsyslog file of raw messages) and names the first problem:
   * the local chain broken (as `audit verify`), a received row altered in transit, two different rows shipped
   * under one sequence, a row received but missing locally (a truncated tail), or a local row that differs
   * from its shipped copy (the chain recomputed after it was shipped).
   */
  verifyAgainst(file: string, options?: { checkpointKey?: KeyObject | undefined }): Promise<AuditVerifyAgainstResult>;
}

/** What a received row must at least hold to be checked. */
const RowSchema = z.looseObject({ sequence: z.number().int().positive(), hash: z.string(), previousHash: z.string() });

interface Received {
  hash: string;
  line: number;
}

export function createReceivedVerifier({
  db,
  audit,
}: {
  db: Database;
  audit: Pick<AuditLog, 'verify'>;
}): ReceivedVerifier {
  const localHash = db.prepare('SELECT hash FROM audit_log WHERE sequence = ?').pluck();
  return {
    async verifyAgainst(file, options = {}) {
      if (!path.isAbsolute(file))
        throw new WorkbenchError('invalid_input', `Cannot read ${file}: the path must be absolute.`, { path: file });
      const stat = await fs.promises.stat(file).catch(() => null);
      if (!stat?.isFile())
        throw new WorkbenchError('not_found', `Cannot read ${file}: there is no such file.`, { path: file });

      const { rows, summary, problem: receivedProblem } = await readReceived(file);
      const local = await audit.verify({ checkpointKey: options.checkpointKey });
      if (!local.ok) return { ...local, received: summary };
      if (receivedProblem) return { ok: false, rowCount: local.rowCount, problem: receivedProblem, received: summary };
      // A file with no audit row in it anchors nothing: the wrong file must not pass for a clean check.
      if (rows.size === 0) {
        return failed(local.rowCount, summary, {
          sequence: 0,
          kind: 'malformed',
          message: `${file} holds no shipped audit rows, so there is nothing to check the log against`,
        });
      }

      const head = local.head;
      // In sequence order, so the first problem named is the earliest one.
      for (const sequence of [...rows.keys()].sort((a, b) => a - b)) {
        const received = rows.get(sequence) as Received;
        if (sequence > head.sequence) {
          return failed(local.rowCount, summary, {
            sequence,
            kind: 'missing',
            line: received.line,
            message: `The collector holds row #${sequence}, but the local log ends at #${head.sequence}: rows were removed from its end (a truncated tail) after they were shipped`,
          });
        }
        const hash = localHash.get(sequence) as string | undefined;
        if (hash === undefined) {
          return failed(local.rowCount, summary, {
            sequence,
            kind: 'missing',
            line: received.line,
            message: `The collector holds row #${sequence}, which the local log no longer has`,
          });
        }
        if (hash !== received.hash) {
          return failed(local.rowCount, summary, {
            sequence,
            kind: 'anchor-mismatch',
            line: received.line,
            message: `Row #${sequence} is not the row that was shipped (shipped hash ${short(received.hash)}, local ${short(hash)}): the local chain was rewritten or recomputed after it was shipped`,
          });
        }
      }
      return { ok: true, rowCount: local.rowCount, head, received: summary };
    },
  };
}

async function readReceived(
  file: string,
): Promise<{ rows: Map<number, Received>; summary: ReceivedSummary; problem: AuditProblem | null }> {
  const rows = new Map<number, Received>();
  const summary: ReceivedSummary = {
    rows: 0,
    lastSequence: 0,
    duplicates: 0,
    cutOff: 0,
    otherLines: 0,
    notReceived: 0,
  };
  let problem: AuditProblem | null = null;
  const lines = readline.createInterface({
    input: fs.createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (problem) continue; // read on only to count; the first problem stands
    const parsed = parseReceivedLine(text);
    if (parsed === null) {
      summary.otherLines++;
      continue;
    }
    if (parsed.json === null) {
      summary.cutOff++;
      continue;
    }
    const row = RowSchema.safeParse(JSON.parse(parsed.json));
    if (!row.success) {
      problem = {
        sequence: parsed.sequence,
        kind: 'malformed',
        line: lineNumber,
        message: `Line ${lineNumber} names row #${parsed.sequence} but does not hold a whole audit row`,
      };
      continue;
    }
    const { hash, ...content } = row.data;
    if (sha256Hex(canonicalJson(content)) !== hash) {
      problem = {
        sequence: row.data.sequence,
        kind: 'content-changed',
        line: lineNumber,
        message: `The collector's copy of row #${row.data.sequence} (line ${lineNumber}) does not hash to its own recorded hash: it was altered after it left the machine`,
      };
      continue;
    }
    const earlier = rows.get(row.data.sequence);
    if (earlier) {
      if (earlier.hash !== hash) {
        problem = {
          sequence: row.data.sequence,
          kind: 'anchor-mismatch',
          line: lineNumber,
          message: `The collector received two different rows #${row.data.sequence} (lines ${earlier.line} and ${lineNumber}): the chain was recomputed and shipped again`,
        };
      } else summary.duplicates++;
      continue;
    }
    rows.set(row.data.sequence, { hash, line: lineNumber });
    summary.lastSequence = Math.max(summary.lastSequence, row.data.sequence);
  }
  summary.rows = rows.size;
  summary.notReceived = summary.lastSequence - rows.size;
  return { rows, summary, problem };
}

function failed(rowCount: number, received: ReceivedSummary, problem: AuditProblem): AuditVerifyAgainstResult {
  return { ok: false, rowCount, problem, received };
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}
