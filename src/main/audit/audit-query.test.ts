import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditQueryInputSchema, type AuditEntry, type AuditQuery } from '../../shared/audit';
import { decisionRecord, fillLog, openTempAuditLog, resultRecord, type TempAuditLog } from './audit-test-support';

let target: TempAuditLog;
let all: AuditEntry[];

beforeEach(() => {
  target = openTempAuditLog();
  fillLog(target, 60);
  all = target.log.query({ limit: 500 }).entries;
});

afterEach(() => target.close());

/** Every page of a query, following the cursors, as sequences. */
function pages(query: AuditQuery): number[][] {
  const result: number[][] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = target.log.query({ ...query, ...(cursor ? { cursor } : {}) });
    result.push(page.entries.map((entry) => entry.sequence));
    if (page.nextCursor === null) return result;
    cursor = page.nextCursor;
  }
  throw new Error('paging did not end');
}

const sequences = (entries: AuditEntry[]): number[] => entries.map((entry) => entry.sequence);

describe('audit.query', () => {
  it('answers newest first, 100 by default, and pages through everything with the cursor, each row once', () => {
    expect(sequences(all)).toEqual(Array.from({ length: 60 }, (_, index) => 60 - index));
    expect(target.log.query().entries).toHaveLength(60);
    const paged = pages({ limit: 7 });
    expect(paged.map((page) => page.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 7, 4]);
    expect(paged.flat()).toEqual(sequences(all));
  });

  it('a page boundary that falls on the last row gives no empty extra page', () => {
    expect(pages({ limit: 30 }).map((page) => page.length)).toEqual([30, 30]);
  });

  it('pages stay stable while rows are appended', () => {
    const first = target.log.query({ limit: 10 });
    fillLog(target, 5);
    const second = target.log.query({ limit: 10, cursor: first.nextCursor ?? undefined });
    expect(sequences(second.entries)).toEqual(Array.from({ length: 10 }, (_, index) => 50 - index));
  });

  it.each<[string, AuditQuery, (entry: AuditEntry) => boolean]>([
    ['chat', { chatId: 'chat-1' }, (entry) => entry.chatId === 'chat-1'],
    ['server', { serverName: 'Web' }, (entry) => entry.serverName === 'Web'],
    ['tool', { toolName: 'read_file' }, (entry) => entry.toolName === 'read_file'],
    ['server and tool', { serverName: 'Files', toolName: 'fetch' }, () => false],
    ['one decision', { decision: 'deny' }, (entry) => entry.decision === 'deny'],
    [
      'several decisions',
      { decision: ['deny', 'auto_deny', 'timeout'] },
      (entry) => ['deny', 'auto_deny', 'timeout'].includes(entry.decision ?? ''),
    ],
    ['actor', { actor: 'policy' }, (entry) => entry.actor === 'policy'],
    ['kind', { kind: 'result' }, (entry) => entry.kind === 'result'],
    [
      'chat and kind',
      { chatId: 'chat-2', kind: 'decision' },
      (entry) => entry.chatId === 'chat-2' && entry.kind === 'decision',
    ],
  ])('filters by %s, paged', (_name, query, matches) => {
    const expected = sequences(all.filter(matches));
    expect(pages({ ...query, limit: 4 }).flat()).toEqual(expected);
    if (expected.length === 0) expect(target.log.query(query).entries).toEqual([]);
  });

  it('filters by time: from inclusive, to exclusive, any offset', () => {
    // fillLog puts rows one second apart from 12:00:01Z.
    const from = '2026-01-01T12:00:10Z';
    const to = '2026-01-01T14:00:20+02:00';
    const expected = sequences(
      all.filter((entry) => entry.time >= '2026-01-01T12:00:10.000Z' && entry.time < '2026-01-01T12:00:20.000Z'),
    );
    expect(expected).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10]);
    expect(pages({ from, to, limit: 3 }).flat()).toEqual(expected);
    expect(sequences(target.log.query({ from: '2026-01-01T12:00:59Z' }).entries)).toEqual([60, 59]);
    expect(sequences(target.log.query({ to: '2026-01-01T12:00:03Z' }).entries)).toEqual([2, 1]);
  });

  it('finds the decision and the result of one call by chat', () => {
    target.log.recordDecision(decisionRecord(0, { chatId: 'solo', toolCallId: 'x' }));
    target.log.recordToolResult(resultRecord(0, { chatId: 'solo', toolCallId: 'x' }));
    expect(target.log.query({ chatId: 'solo' }).entries.map((entry) => entry.kind)).toEqual(['result', 'decision']);
  });

  it("finds the tool calls an MCP App's view asked for apart from the model's, by the exact `app:` prefix", () => {
    target.log.recordDecision(decisionRecord(0, { chatId: 'view', toolCallId: 'app:one' }));
    target.log.recordToolResult(resultRecord(0, { chatId: 'view', toolCallId: 'app:one' }));
    // Not an app's call: the prefix differs in case, or stands elsewhere in the id.
    target.log.recordDecision(decisionRecord(1, { chatId: 'view', toolCallId: 'APP:two' }));
    target.log.recordDecision(decisionRecord(2, { chatId: 'view', toolCallId: 'call_app:three' }));
    const app = pages({ requestedBy: 'app', limit: 1 }).flat();
    const everything = target.log.query({ limit: 500 }).entries;
    expect(app).toEqual(sequences(everything.filter((entry) => entry.toolCallId === 'app:one')));
    expect(app).toHaveLength(2);
    const model = target.log.query({ requestedBy: 'model', limit: 500 }).entries;
    expect(sequences(model)).toEqual(
      sequences(
        everything.filter(
          (entry) => (entry.kind === 'decision' || entry.kind === 'result') && !entry.toolCallId.startsWith('app:'),
        ),
      ),
    );
    expect(model.map((entry) => entry.toolCallId)).toEqual(expect.arrayContaining(['APP:two', 'call_app:three']));
    // With the other filters: an app's decisions only.
    expect(
      target.log.query({ requestedBy: 'app', kind: 'decision' }).entries.map((entry) => [entry.kind, entry.toolCallId]),
    ).toEqual([['decision', 'app:one']]);
  });
});

describe('the query input schema', () => {
  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 501 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ decision: 'maybe' }, 'decision'],
    [{ decision: [] }, 'decision'],
    [{ actor: 'robot' }, 'actor'],
    [{ kind: 'other' }, 'kind'],
    [{ requestedBy: 'person' }, 'requestedBy'],
    [{ from: 'yesterday' }, 'from'],
    [{ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'from'],
    [{ cursor: '-1' }, 'cursor'],
    [{ cursor: 'abc' }, 'cursor'],
    [{ chatId: '' }, 'chatId'],
    [{ sql: 'DROP TABLE audit_log' }, ''],
  ])('refuses %j, naming %s', (input, field) => {
    const parsed = AuditQueryInputSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });

  it('accepts the largest page and no input at all', () => {
    expect(AuditQueryInputSchema.safeParse({ limit: 500 }).success).toBe(true);
    expect(AuditQueryInputSchema.safeParse(undefined).success).toBe(true);
  });
});
