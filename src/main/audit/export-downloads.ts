import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  AUDIT_EXPORT_READ_CHUNK_BYTES,
  type AuditExportFormat,
  type AuditExportPrepareOutput,
  type AuditExportReadOutput,
} from '../../shared/audit';
import { WorkbenchError } from '../errors';
import type { AuditLog, AuditProgressListener } from './audit-log';

/** How long a prepared export waits to be read before its file is removed. */
export const EXPORT_DOWNLOAD_TTL_MS = 10 * 60 * 1000;

/**
 * Exports as downloads: the renderer cannot name a path in browser mode (and should not have to in the
 * app), so the export is written by the one export implementation (`AuditLog.export`) into a private
 * temporary folder, then read back in chunks by the renderer, which saves it where the person picks.
 * A file is removed once its last chunk is read, when it expires, or on `dispose`.
 */
export interface AuditExportDownloads {
  prepare(format: AuditExportFormat, onProgress?: AuditProgressListener): Promise<AuditExportPrepareOutput>;
  read(exportId: string, offset: number): Promise<AuditExportReadOutput>;
  dispose(): Promise<void>;
}

export interface AuditExportDownloadsOptions {
  audit: Pick<AuditLog, 'export'>;
  /** Where the private folders go; the OS temporary folder unless a test passes another. */
  tempRoot?: string;
  now?: () => number;
  ttlMs?: number;
}

interface Prepared {
  folder: string;
  file: string;
  bytes: number;
  expiresAt: number;
}

export function createAuditExportDownloads(options: AuditExportDownloadsOptions): AuditExportDownloads {
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? EXPORT_DOWNLOAD_TTL_MS;
  const prepared = new Map<string, Prepared>();

  const forget = async (id: string): Promise<void> => {
    const entry = prepared.get(id);
    if (!entry) return;
    prepared.delete(id);
    await fs.rm(entry.folder, { recursive: true, force: true });
  };
  const sweep = async (): Promise<void> => {
    const time = now();
    await Promise.all([...prepared].filter(([, entry]) => entry.expiresAt <= time).map(([id]) => forget(id)));
  };

  return {
    async prepare(format, onProgress) {
      await sweep();
      const folder = await fs.mkdtemp(path.join(options.tempRoot ?? os.tmpdir(), 'aiwb-export-'));
      const fileName = `ai-workbench-audit-${new Date(now()).toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${format}`;
      try {
        const result = await options.audit.export({ format, path: path.join(folder, fileName), onProgress });
        const exportId = randomUUID();
        prepared.set(exportId, { folder, file: result.path, bytes: result.bytes, expiresAt: now() + ttl });
        return {
          exportId,
          fileName,
          format: result.format,
          rowCount: result.rowCount,
          head: result.head,
          bytes: result.bytes,
        };
      } catch (error) {
        await fs.rm(folder, { recursive: true, force: true });
        throw error;
      }
    },
    async read(exportId, offset) {
      await sweep();
      const entry = prepared.get(exportId);
      if (!entry)
        throw new WorkbenchError(
          'not_found',
          'This export is no longer available (it was read to the end or expired); export again.',
          { exportId },
        );
      if (offset > entry.bytes)
        throw new WorkbenchError(
          'invalid_input',
          `The offset ${offset} is past the end of the export (${entry.bytes} bytes).`,
        );
      const length = Math.min(AUDIT_EXPORT_READ_CHUNK_BYTES, entry.bytes - offset);
      const buffer = Buffer.alloc(length);
      const handle = await fs.open(entry.file, 'r');
      try {
        await handle.read(buffer, 0, length, offset);
      } finally {
        await handle.close();
      }
      const nextOffset = offset + length;
      const done = nextOffset >= entry.bytes;
      if (done) await forget(exportId);
      else entry.expiresAt = now() + ttl;
      return { base64: buffer.toString('base64'), nextOffset, done };
    },
    async dispose() {
      await Promise.all([...prepared.keys()].map((id) => forget(id)));
    },
  };
}
