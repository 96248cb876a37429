import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { AuditExportFormat, AuditExportResult, AuditHead } from '../../shared/audit';
import { canonicalJson } from '../../shared/canonical-json';
import { WorkbenchError } from '../errors';
import type { AuditProgressListener } from './audit-log';
import { ROWS_PER_PROGRESS, ROWS_PER_SLICE, withAuditSnapshot, yieldToEventLoop } from './audit-reader';
import { AUDIT_FIELDS, GENESIS_HASH } from './audit-row';
import { csvRecord } from './csv';
import { ChunkedLineWriter, EXPORT_CHUNK_BYTES } from './export-lines';
import { exportLineQuery, joinExportLine } from './export-sql';

/** The data folder's folder for exports: the only place the contract's `audit.export` writes to. */
export const EXPORTS_FOLDER_NAME = 'exports';

/** The first line of every export names it, so a file can be recognised and checked on its own. */
export const EXPORT_MARKER = 'aiWorkbenchAuditExport';
export const EXPORT_VERSION = 1;

/** The header of an export: the chain head of the last exported row and how many rows follow. */
export interface ExportHeader {
  [EXPORT_MARKER]: typeof EXPORT_VERSION;
  format: AuditExportFormat;
  exportedAt: string;
  genesisHash: string;
  head: AuditHead;
  rowCount: number;
}

export interface ExportAuditLogOptions {
  databaseFile: string;
  dataDir: string;
  format: AuditExportFormat;
  path: string;
  overwrite: boolean;
  onProgress?: AuditProgressListener | undefined;
  now?: () => number;
}

/**
 * Streams the whole log, as of one snapshot, into a file: the header, then one line (JSONL) or record
 * (CSV) per row in sequence order. Memory stays constant: rows are read one at a time with `.iterate()`
 * and encoded into a few reused buffers, and the writer waits whenever the stream asks it to
 * (backpressure). The rows go to a temporary file in the same folder that is synced and renamed into
 * place, so the target is never left half-written.
 */
export async function exportAuditLog(options: ExportAuditLogOptions): Promise<AuditExportResult> {
  const target = await exportTarget(options);
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomUUID().slice(0, 8)}.partial`);
  // `flush` syncs the file to disk before it is closed, so a renamed export is a complete one.
  const stream = createWriteStream(temporary, {
    flags: 'wx',
    mode: 0o600,
    flush: true,
    highWaterMark: EXPORT_CHUNK_BYTES,
  });
  const writer = new ChunkedLineWriter(stream);
  try {
    await once(stream, 'open');
    const result = await withAuditSnapshot(options.databaseFile, async (snapshot) => {
      const head = snapshot.lastRow();
      const rowCount = snapshot.countThrough(head.sequence);
      const header: ExportHeader = {
        [EXPORT_MARKER]: EXPORT_VERSION,
        format: options.format,
        exportedAt: new Date((options.now ?? Date.now)()).toISOString(),
        genesisHash: GENESIS_HASH,
        head,
        rowCount,
      };
      await writer.add(options.format === 'jsonl' ? `${canonicalJson(header)}\n` : csvHeader(header));
      const { nullDuration } = exportLineQuery(options.format);
      const rows = snapshot.exportLines(options.format, head.sequence);
      let done = 0;
      try {
        for (const parts of rows) {
          const pending = writer.add(joinExportLine(parts, nullDuration));
          if (pending) await pending;
          done++;
          if (done % ROWS_PER_PROGRESS === 0) options.onProgress?.(done, rowCount);
          if (done % ROWS_PER_SLICE === 0) await yieldToEventLoop();
        }
      } finally {
        rows.return?.();
      }
      await writer.flush();
      if (done !== rowCount)
        throw new Error(
          `The audit log changed during the export (${done} rows read, ${rowCount} counted); nothing was written.`,
        );
      options.onProgress?.(done, rowCount);
      return { head, rowCount };
    });
    stream.end();
    await finished(stream);
    if (!options.overwrite) await refuseExisting(target);
    await fs.rename(temporary, target);
    return {
      path: target,
      format: options.format,
      rowCount: result.rowCount,
      head: result.head,
      bytes: stream.bytesWritten,
    };
  } catch (error) {
    stream.destroy();
    await finished(stream).catch(() => undefined); // the error that matters is the one being raised
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

/** CSV: the header record first (marker and chain head as `name=value` fields), then the column names. */
function csvHeader(header: ExportHeader): string {
  return (
    csvRecord([
      `# ${EXPORT_MARKER}=${EXPORT_VERSION}`,
      `format=${header.format}`,
      `exportedAt=${header.exportedAt}`,
      `headSequence=${header.head.sequence}`,
      `headHash=${header.head.hash}`,
      `rowCount=${header.rowCount}`,
      `genesisHash=${header.genesisHash}`,
    ]) + csvRecord(AUDIT_FIELDS)
  );
}

/**
 * Where the export may go: absolute; the format's extension (so no export ever replaces `.bashrc` or a
 * database); an existing folder outside the data folder (or its exports/ folder); an existing file only with
 * `overwrite`. Any such path is for the person's own command line (`workbench audit export --out`); what the
 * contract may name is narrower still (export-folder.ts).
 */
async function exportTarget({ path: requested, format, dataDir, overwrite }: ExportAuditLogOptions): Promise<string> {
  const refuse = (why: string): WorkbenchError =>
    new WorkbenchError('invalid_input', `Cannot export the audit log to ${requested}: ${why}.`, { path: requested });
  if (!path.isAbsolute(requested)) throw refuse('the path must be absolute');
  const resolved = path.resolve(requested);
  if (path.extname(resolved).toLowerCase() !== `.${format}`)
    throw refuse(`a ${format.toUpperCase()} export must end in .${format}`);
  let folder: string;
  try {
    folder = await fs.realpath(path.dirname(resolved));
  } catch {
    throw refuse('its folder does not exist');
  }
  const data = await fs.realpath(dataDir).catch(() => path.resolve(dataDir));
  // The data folder's exports/ is the one place in it meant for exports (export-folder.ts).
  if (isInside(folder, data) && folder !== path.join(data, EXPORTS_FOLDER_NAME)) {
    throw refuse('it is inside the data folder, next to the database, settings and secrets');
  }
  const target = path.join(folder, path.basename(resolved));
  const existing = await fs.lstat(target).catch(() => null);
  if (existing) {
    if (!existing.isFile() && !existing.isSymbolicLink()) throw refuse('something other than a file is there');
    if (!overwrite) throw alreadyExists(target);
  }
  return target;
}

async function refuseExisting(target: string): Promise<void> {
  const existing = await fs.lstat(target).catch(() => null);
  if (existing) throw alreadyExists(target);
}

function alreadyExists(target: string): WorkbenchError {
  return new WorkbenchError('already_exists', `${target} already exists; export again with overwrite to replace it.`, {
    path: target,
  });
}

function isInside(child: string, parent: string): boolean {
  const fold = (text: string): string =>
    process.platform === 'win32' || process.platform === 'darwin' ? text.toLowerCase() : text;
  const relative = path.relative(fold(parent), fold(child));
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
