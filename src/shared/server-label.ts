// Kept apart from audit-stats.ts (zod schemas) so the CLI's start graph stays free of zod (src/cli/start-graph.test.ts).

/** A server's name as the figures show it: "Files", or "Files (before 2026-11-20 10:00 UTC)" for an earlier one's calls. */
export function serverLabel(entry: { serverName: string; until?: string | undefined }): string {
  return entry.until === undefined
    ? entry.serverName
    : `${entry.serverName} (before ${entry.until.slice(0, 16).replace('T', ' ')} UTC)`;
}
