import type { AuditStatsQuery } from '../../shared/audit-stats';
import { APP_REQUESTS_NOT_CALLS, FRAME_REFUSAL_WORDS } from '../../shared/mcp-apps';
import { appCallSql } from './audit-query';

/**
 * The one SQL statement behind the Insights page (docs/user/insights.md): one pass over the period's decision rows,
 * grouped by bucket, kind, server, tool, decision, actor, deciding text and wait bucket. Everything the page shows is
 * rolled up from its few hundred groups (audit-stats.ts), so the work stays in SQLite and scales with the log.
 * `insights-1m` (docs/dev/benchmarks.md) runs this same text in the sqlite3 CLI as its floor.
 */

/** The upper bounds of the "time to decide" buckets, in ms; a last bucket holds the longer waits. */
export const WAIT_BOUNDS_MS = [5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 900_000] as const;

/** Server requests record a second row when the model's answer is sent; it is not a decision of its own. */
export const NOT_A_DECISION_TOOL = 'sampling/answer';

export const CALL_KIND_ROWS = {
  tool: 'decision',
  sampling: 'sampling',
  elicitation: 'elicitation',
  'app-tool-call': 'decision',
} as const;

/** A tool call an MCP App's view made is a decision row whose call id starts with `app:`; the model's are the others. */
const APP_CALL = appCallSql('a.tool_call_id');
/**
 * A view's row that is no tool call: another request of the view (a resource read, a link) or a refusal made in its
 * frame (its Content-Security-Policy) — in the log, not in Insights (docs/user/insights.md#filters).
 */
const NOT_A_CALL = `(${APP_CALL} AND (a.tool_name IN (${APP_REQUESTS_NOT_CALLS.map((name) => `'${name}'`).join(', ')}) OR substr(a.decided_by, 1, ${FRAME_REFUSAL_WORDS.length}) = '${FRAME_REFUSAL_WORDS.replaceAll("'", "''")}'))`;

/** A group of the statement, as `.raw()` returns it. */
export type StatsGroupRow = [
  bucket: string,
  kind: string,
  serverName: string,
  toolName: string,
  /** 1: made under the name before the server that has it now (statsStatement's `eras`). */
  earlier: number,
  decision: string | null,
  actor: string | null,
  source: string | null,
  waitBucket: number | null,
  count: number,
  waitSum: number | null,
  waitMax: number | null,
];

export interface StatsStatement {
  sql: string;
  params: (string | number)[];
}

/** `strftime` modifier for the person's offset, or null when it is UTC (then a prefix of the stored text is the bucket). */
function offsetModifier(minutes: number): string | null {
  return minutes === 0 ? null : `${minutes > 0 ? '+' : ''}${minutes} minutes`;
}

/**
 * `eras`: per configured server name, when the identity of the server that has it now was recorded (ISO time, as the
 * log writes times). A row under that name written then or before was made to what the name meant before (another
 * server, or the same before its identity was recorded): it is counted, apart (`earlier` 1), never as the current one's.
 */
export function statsStatement(query: AuditStatsQuery, eras: ReadonlyMap<string, string> = new Map()): StatsStatement {
  const params: (string | number)[] = [];
  const modifier = offsetModifier(query.utcOffsetMinutes ?? 0);
  const hour = query.bucket === 'hour';
  let bucket: string;
  if (modifier === null) bucket = `substr(a.time, 1, ${hour ? 13 : 10})`;
  else {
    bucket = `strftime('${hour ? '%Y-%m-%dT%H' : '%Y-%m-%d'}', a.time, ?)`;
    params.push(modifier);
  }
  let earlier = '0';
  if (eras.size > 0) {
    earlier = `CASE a.server_name ${[...eras].map(() => 'WHEN ? THEN a.time <= ?').join(' ')} ELSE 0 END`;
    for (const [name, since] of eras) params.push(name, since);
  }
  const where = ['a.time >= ?', 'a.time < ?', `a.tool_name <> '${NOT_A_DECISION_TOOL}'`, `NOT ${NOT_A_CALL}`];
  params.push(new Date(query.from).toISOString(), new Date(query.to).toISOString());
  if (query.kind === undefined) where.push(`a.kind IN ('decision', 'sampling', 'elicitation')`);
  else {
    where.push('a.kind = ?');
    params.push(CALL_KIND_ROWS[query.kind]);
    if (query.kind === 'tool') where.push(`NOT ${APP_CALL}`);
    if (query.kind === 'app-tool-call') where.push(APP_CALL);
  }
  for (const [column, value] of [
    ['a.server_name', query.serverName],
    ['a.tool_name', query.toolName],
    ['a.chat_id', query.chatId],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  const waitCase = `CASE ${WAIT_BOUNDS_MS.map((bound, index) => `WHEN wait < ${bound} THEN ${index}`).join(' ')} ELSE ${WAIT_BOUNDS_MS.length} END`;
  // The wait: from when the call started waiting (pending_requests, kept once decided) to its decision row.
  const sql = `SELECT bucket, kind, server_name, tool_name, earlier, decision, actor, source, CASE WHEN wait IS NULL THEN NULL ELSE ${waitCase} END AS wait_bucket,
  count(*), sum(wait), max(wait)
FROM (
  SELECT ${bucket} AS bucket, a.kind, a.server_name, a.tool_name, ${earlier} AS earlier, a.decision, a.actor,
    CASE WHEN a.actor IN ('policy', 'system') THEN a.decided_by END AS source,
    max(0, (julianday(a.time) - 2440587.5) * 86400000.0 - p.created_at) AS wait
  FROM audit_log a
  LEFT JOIN pending_requests p ON a.actor IN ('user', 'cli', 'system') AND a.kind = 'decision' AND coalesce(p.chat_id, '') = a.chat_id AND p.request_id = a.tool_call_id
  WHERE ${where.join(' AND ')}
)
GROUP BY bucket, kind, server_name, tool_name, earlier, decision, actor, source, wait_bucket`;
  return { sql, params };
}

/** The statement with its parameters written in as SQL literals, for the sqlite3 CLI (the benchmark's floor). */
export function inlineStatement({ sql, params }: StatsStatement): string {
  let index = 0;
  return sql.replace(/\?/g, () => {
    const value = params[index++];
    return typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`;
  });
}
