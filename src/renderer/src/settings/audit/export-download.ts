import type { WorkbenchApi } from '../../../../shared/api';
import type { AuditExportFormat, AuditExportPrepareOutput } from '../../../../shared/audit';

/** Base64 to bytes (the contract carries the export's bytes as base64 chunks). */
export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

export const EXPORT_MIME_TYPES: Readonly<Record<AuditExportFormat, string>> = {
  csv: 'text/csv;charset=utf-8',
  jsonl: 'application/x-ndjson;charset=utf-8',
};

/**
 * Fetches a whole export through the contract (`audit.exportPrepare`, then `audit.exportRead` chunk by
 * chunk) as a Blob. The same in Electron and browser mode: the file never needs a path the renderer names.
 */
export async function fetchExport(
  api: Pick<WorkbenchApi, 'audit'>,
  format: AuditExportFormat,
  onProgress?: (bytesRead: number, total: number) => void,
): Promise<{ blob: Blob; prepared: AuditExportPrepareOutput }> {
  const prepared = await api.audit.exportPrepare({ format });
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let offset = 0;
  for (;;) {
    const chunk = await api.audit.exportRead({ exportId: prepared.exportId, offset });
    parts.push(base64ToBytes(chunk.base64));
    offset = chunk.nextOffset;
    onProgress?.(offset, prepared.bytes);
    if (chunk.done) break;
  }
  return { blob: new Blob(parts, { type: EXPORT_MIME_TYPES[format] }), prepared };
}

/**
 * Hands a Blob to the person as a file: the browser's download (its save dialog when it asks where to
 * save, as Electron does by default).
 */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started by now; give the browser a moment before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
