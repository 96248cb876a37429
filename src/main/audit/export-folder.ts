import fs from 'node:fs/promises';
import path from 'node:path';
import type { AuditExportInput, AuditExportResult } from '../../shared/audit';
import { WorkbenchError } from '../errors';
import { EXPORTS_FOLDER_NAME } from './audit-export';
import type { AuditLog, AuditProgressListener } from './audit-log';

/**
 * `audit.export` over the contract (docs/user/audit-log.md). The contract is reachable from the renderer and from
 * anything holding browser mode's token, so it must not write wherever it is told, over whatever is there:
 * it writes only into the data folder's exports/ folder (owner-only), by a plain file name. Saving anywhere
 * else is the person's own act: the Export button (a download, saved where the browser's or the desktop's
 * dialog says: export-downloads.ts) or `workbench audit export --out` on their own command line, which calls
 * `AuditLog.export` directly, never this contract method. See docs/user/audit-log.md.
 */
export interface AuditExportFolder {
  /** The folder (created on first use). */
  readonly folder: string;
  export(input: AuditExportInput, onProgress?: AuditProgressListener): Promise<AuditExportResult>;
}

export interface AuditExportFolderOptions {
  audit: Pick<AuditLog, 'export'>;
  dataDir: string;
  now?: () => number;
}

export function createAuditExportFolder({
  audit,
  dataDir,
  now = Date.now,
}: AuditExportFolderOptions): AuditExportFolder {
  const folder = path.resolve(dataDir, EXPORTS_FOLDER_NAME);
  return {
    folder,
    async export(input, onProgress) {
      const fileName = fileNameOf(input, folder, now);
      await ownFolder(folder);
      return audit.export({
        format: input.format,
        path: path.join(folder, fileName),
        overwrite: input.overwrite ?? false,
        onProgress,
      });
    },
  };
}

/** The file's name inside the folder: given as `fileName`, as a `path` already in the folder, or made from the time. */
function fileNameOf(input: AuditExportInput, folder: string, now: () => number): string {
  if (input.path !== undefined && input.fileName !== undefined)
    throw new WorkbenchError('invalid_input', 'Give the export a fileName or a path, not both.');
  if (input.path !== undefined) {
    const resolved = path.resolve(input.path);
    if (!path.isAbsolute(input.path) || path.dirname(resolved) !== folder) {
      throw new WorkbenchError(
        'invalid_input',
        `audit.export writes only into ${folder} (the data folder's exports folder), not to ${input.path}. ` +
          'To save the audit log elsewhere, use the Export button, which asks where, or `workbench audit export --out <file>`.',
        { path: input.path, folder },
      );
    }
    return path.basename(resolved);
  }
  const name =
    input.fileName ??
    `ai-workbench-audit-${new Date(now()).toISOString().slice(0, 19).replace(/[:T]/g, '-')}.${input.format}`;
  // A name, not a path: no separator, no "..", nothing hidden (the export's temporary files start with a dot).
  if (name !== path.basename(name) || name.includes('/') || name.includes('\\') || name.startsWith('.')) {
    throw new WorkbenchError(
      'invalid_input',
      `The export's fileName must be a plain file name, not ${JSON.stringify(name)}.`,
      { fileName: name },
    );
  }
  return name;
}

/** The exports folder as a real folder of the owner's (0700), never a link to somewhere else. */
async function ownFolder(folder: string): Promise<void> {
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(folder);
  if (!stat.isDirectory()) {
    throw new WorkbenchError(
      'invalid_input',
      `${folder} is not a folder (a link or a file is there); move it away to export into it.`,
      { folder },
    );
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) await fs.chmod(folder, 0o700);
}
