import type { AuditEntry } from '../../../../shared/audit';

/** How many times a block's row counts (`args.count`: a burst of the same block is one row). */
function countOf(entry: AuditEntry): number {
  const count = (entry.args as { count?: unknown } | null)?.count;
  return typeof count === 'number' && Number.isInteger(count) && count > 1 ? count : 1;
}

/**
 * The recent blocks, the same block (kind, target, call) on one line with the count of all its rows, at its newest
 * row (docs/user/sandbox.md#blocks): a server that keeps trying one path shows one line, not one per burst.
 */
export function sameBlocksTogether(entries: readonly AuditEntry[]): { entry: AuditEntry; count: number }[] {
  const lines = new Map<string, { entry: AuditEntry; count: number }>();
  for (const entry of entries) {
    const args = entry.args as { target?: unknown; call?: unknown } | null;
    const key =
      typeof args?.target === 'string'
        ? JSON.stringify([entry.toolName, args.target, args.call ?? null])
        : `row ${entry.sequence}`;
    const line = lines.get(key);
    if (line) line.count += countOf(entry);
    else lines.set(key, { entry, count: countOf(entry) });
  }
  return [...lines.values()];
}
