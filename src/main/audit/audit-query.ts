import type BetterSqlite3 from 'better-sqlite3';
import { AUDIT_QUERY_DEFAULT_LIMIT, type AuditPage, type AuditQuery } from '../../shared/audit';
import { AUDIT_COLUMNS_SQL, entryOf, storedRowOf } from './audit-row';
import { requesterSql } from './requested-by';

export { appCallSql } from './requested-by';

/**
 * Pages through the audit log newest first. The cursor is the sequence of the last row of the
 * previous page, so pages stay stable while new rows are appended. Filters go into bound
 * parameters only; a statement is prepared once per combination of filters.
 */
export function createAuditQuery(db: BetterSqlite3.Database): (query?: AuditQuery) => AuditPage {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepared = (sql: string): BetterSqlite3.Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql).raw();
      statements.set(sql, statement);
    }
    return statement;
  };

  return (query = {}) => {
    const where: string[] = [];
    const params: unknown[] = [];
    const equal = (column: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(value);
    };
    equal('kind', query.kind);
    equal('chat_id', query.chatId);
    equal('server_name', query.serverName);
    equal('tool_name', query.toolName);
    equal('actor', query.actor);
    if (query.decidedBy !== undefined) {
      where.push('substr(decided_by, 1, ?) = ?');
      params.push(query.decidedBy.length, query.decidedBy);
    }
    if (query.requestedBy !== undefined) {
      where.push(`${requesterSql()} = ?`);
      params.push(query.requestedBy);
    }
    if (query.decision !== undefined) {
      const decisions = [...new Set(Array.isArray(query.decision) ? query.decision : [query.decision])];
      where.push(`decision IN (${decisions.map(() => '?').join(', ')})`);
      params.push(...decisions);
    }
    // Times are stored as `toISOString()` text, which sorts as time does; inputs with an offset are brought to that form.
    if (query.from !== undefined) {
      where.push('time >= ?');
      params.push(new Date(query.from).toISOString());
    }
    if (query.to !== undefined) {
      where.push('time < ?');
      params.push(new Date(query.to).toISOString());
    }
    if (query.cursor !== undefined) {
      where.push('sequence < ?');
      params.push(Number(query.cursor));
    }
    const limit = query.limit ?? AUDIT_QUERY_DEFAULT_LIMIT;
    const sql = `SELECT ${AUDIT_COLUMNS_SQL} FROM audit_log${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY sequence DESC LIMIT ?`;
    const rows = prepared(sql).all(...params, limit + 1) as unknown[][];
    const page = rows.slice(0, limit).map((values) => entryOf(storedRowOf(values)));
    const last = page.at(-1);
    return { entries: page, nextCursor: rows.length > limit && last ? String(last.sequence) : null };
  };
}
