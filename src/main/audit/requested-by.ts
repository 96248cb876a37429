import type { CALL_REQUESTERS } from '../../shared/closed-sets';
import { APP_CALL_PREFIX } from '../../shared/mcp-apps';

/** Who asked for what a row records (docs/user/audit-log.md#requested-by). */
export type Requester = (typeof CALL_REQUESTERS)[number];

/**
 * SQL true for a row of a tool call an MCP App's view asked for: its call id starts with `app:` (docs/user/mcp-apps.md).
 * Compared as bytes (LIKE would ignore case).
 */
export function appCallSql(column = 'tool_call_id'): string {
  return `substr(${column}, 1, ${APP_CALL_PREFIX.length}) = '${APP_CALL_PREFIX}'`;
}

/**
 * Who asked, for a row written before `requested_by` was a column (it holds NULL there): derived from what its hash
 * covers, its kind and call id — a tool call's rows by the `app:` prefix of a view's calls, a server's request rows
 * by their kind; nobody asked for a policy or checkpoint row.
 */
export function derivedRequester(kind: string, toolCallId: string): Requester | null {
  if (kind === 'decision' || kind === 'result') return toolCallId.startsWith(APP_CALL_PREFIX) ? 'app' : 'model';
  if (kind === 'sampling' || kind === 'elicitation') return 'server';
  return null;
}

/** The row's requester in SQL: the column, or for a row written before it, `derivedRequester`'s rule. */
export function requesterSql(prefix = ''): string {
  const kind = `${prefix}kind`;
  return `coalesce(${prefix}requested_by, CASE WHEN ${kind} IN ('decision', 'result') THEN CASE WHEN ${appCallSql(
    `${prefix}tool_call_id`,
  )} THEN 'app' ELSE 'model' END WHEN ${kind} IN ('sampling', 'elicitation') THEN 'server' END)`;
}
