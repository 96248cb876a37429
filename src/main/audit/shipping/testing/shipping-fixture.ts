/** Shared by the shipping tests, the kill child and the audit-ship benchmark: rows to ship and a way to wait. */
import type { AuditLog } from '../../audit-log';

/** Appends `count` rows: decisions and results in turn, with text that needs escaping in syslog structured data. */
export function recordRows(log: AuditLog, count: number, label = 'r'): void {
  for (let index = 0; index < count; index++) recordRow(log, index, label);
}

export function recordRow(log: AuditLog, index: number, label = 'r'): void {
  const call = {
    chatId: `chat-${label}`,
    exchangeId: `exchange-${label}`,
    toolCallId: `call-${label}-${index}`,
    serverName: 'Files',
    toolName: 'write_file',
  };
  if (index % 2 === 0) {
    log.recordDecision({
      ...call,
      decision: index % 6 === 0 ? 'deny' : 'allow_once',
      actor: 'user',
      decidedBy: 'you decided [in the "card"] \\ here',
      reason: index % 6 === 0 ? 'not] "now"\nplease' : undefined,
      args: { path: `/tmp/${label}/${index}`, apiKey: `sk-${index}-secret-value-1234567890` },
    });
  } else {
    log.recordToolResult({
      ...call,
      outcome: index % 5 === 0 ? 'error' : 'success',
      durationMs: index,
      resultBytes: index * 10,
      error: index % 5 === 0 ? 'failed ]' : undefined,
    });
  }
}

/** Polls until `check` holds; raises with `what` when it does not within `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
