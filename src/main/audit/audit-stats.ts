import type BetterSqlite3 from 'better-sqlite3';
import type {
  AuditStats,
  AuditStatsQuery,
  Decider,
  DeciderKind,
  DecisionCounts,
  RuleStats,
  ServerStats,
  StatsBucket,
  ToolStats,
  WaitStats,
} from '../../shared/audit-stats';
import { statsStatement, WAIT_BOUNDS_MS, type StatsGroupRow } from './audit-stats-sql';

/**
 * Approval insights (docs/user/insights.md): the figures of a period, rolled up from the groups of one SQL pass
 * (audit-stats-sql.ts). The caller names the current policy's rules and the texts each writes when it decides
 * (approval/insights), so those that never matched show with 0.
 */

/** A rule of the current policy, and the `decidedBy` texts it writes when it decides a call. */
export interface RuleDescriptor extends Omit<RuleStats, 'decided'> {
  readonly texts: readonly string[];
}

const TOP = 15;

export type AuditStatsReader = (
  query: AuditStatsQuery,
  rules: readonly RuleDescriptor[],
  options?: {
    allTools?: boolean;
    /** Per configured server, when its current identity was recorded (audit-stats-sql.ts `statsStatement`). */
    eras?: ReadonlyMap<string, string>;
  },
) => AuditStats;

export function createAuditStats(db: BetterSqlite3.Database): AuditStatsReader {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const head = db.prepare('SELECT coalesce(max(sequence), 0) FROM audit_log').pluck();
  return (query, rules, options = {}) => {
    const eras = options.eras ?? new Map<string, string>();
    const { sql, params } = statsStatement(query, eras);
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql).raw();
      statements.set(sql, statement);
    }
    // One read transaction: the head and the groups are of the same snapshot.
    return db.transaction(() =>
      rollUp(
        query,
        statement.all(...params) as StatsGroupRow[],
        rules,
        head.get() as number,
        options.allTools === true ? Infinity : TOP,
        eras,
      ),
    )();
  };
}

export function emptyCounts(): DecisionCounts {
  return {
    total: 0,
    asked: 0,
    allowedByYou: 0,
    allowedByPolicy: 0,
    deniedByYou: 0,
    deniedByPolicy: 0,
    timedOut: 0,
    cancelled: 0,
  };
}

/** Which count a decision row adds to (docs/user/insights.md, "Decisions over time"). */
export function countOf(
  decision: string | null,
  actor: string | null,
): keyof Omit<DecisionCounts, 'total' | 'asked'> | null {
  const byPerson = actor === 'user' || actor === 'cli';
  switch (decision) {
    case 'allow_once':
    case 'allow_session':
      return byPerson ? 'allowedByYou' : 'allowedByPolicy';
    case 'auto_allow':
    case 'session_grant':
      return 'allowedByPolicy';
    case 'deny':
      return byPerson ? 'deniedByYou' : 'deniedByPolicy';
    case 'auto_deny':
      return 'deniedByPolicy';
    case 'timeout':
      return 'timedOut';
    case 'cancelled':
      return 'cancelled';
    default:
      return null;
  }
}

const ASKED = new Set(['allowedByYou', 'deniedByYou', 'timedOut', 'cancelled']);

function add(counts: DecisionCounts, name: keyof DecisionCounts, count: number): void {
  counts[name] += count;
  counts.total += count;
  if (ASKED.has(name)) counts.asked += count;
}

/** A deciding text's kind and the label it is grouped under (a grant's time of day is dropped: one group of grants). */
export function classifyDecider(
  text: string,
  kind: string,
  actor: string | null,
): { kind: DeciderKind; label: string; decidedBy: string } {
  const same = (deciderKind: DeciderKind): { kind: DeciderKind; label: string; decidedBy: string } => ({
    kind: deciderKind,
    label: text,
    decidedBy: text,
  });
  if (actor === 'system') return same('system');
  if (/^(Auto-approved|Denied|Asked because of) by your rule #\d+/.test(text)) return same('rule');
  if (/^(Auto-approved by your organisation's rule|Denied by your organisation's policy, rule) '/.test(text))
    return same('organisation-rule');
  if (text.startsWith('Auto-approved: tool setting')) return same('tool-setting');
  if (text.startsWith('Auto-approved: server setting')) return same('server-setting');
  if (text.startsWith('Auto-approved:') && text.includes('read-only')) return same('trusted-read-only');
  if (text.startsWith('Allowed for this chat'))
    return {
      kind: 'chat-grant',
      label: "Allowed for this chat (you chose 'Allow for this chat')",
      decidedBy: 'Allowed for this chat',
    };
  if (text.startsWith("Allowed: this chat is set to 'Never ask'")) return same('chat-never-ask');
  if (text.startsWith('Approvals are off')) return same('approvals-off');
  if (kind === 'sampling' || kind === 'elicitation') return same('server-request-setting');
  return same('other');
}

function bucketKeys(query: AuditStatsQuery): { key: string; start: string; label: string }[] {
  const offsetMs = (query.utcOffsetMinutes ?? 0) * 60_000;
  const step = query.bucket === 'hour' ? 3_600_000 : 86_400_000;
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const keys: { key: string; start: string; label: string }[] = [];
  // Local bucket starts, as UTC instants: floor in the person's time, then back.
  for (let local = Math.floor((from + offsetMs) / step) * step; local - offsetMs < to; local += step) {
    const text = new Date(local).toISOString();
    const key = query.bucket === 'hour' ? text.slice(0, 13) : text.slice(0, 10);
    keys.push({
      key,
      start: new Date(local - offsetMs).toISOString(),
      label: query.bucket === 'hour' ? `${key.slice(0, 10)} ${key.slice(11, 13)}h` : key,
    });
  }
  return keys;
}

function waitLabel(index: number): string {
  const seconds = (ms: number): string => (ms < 60_000 ? `${ms / 1000} s` : `${ms / 60_000} min`);
  if (index === 0) return `under ${seconds(WAIT_BOUNDS_MS[0])}`;
  if (index >= WAIT_BOUNDS_MS.length) return `over ${seconds(WAIT_BOUNDS_MS[WAIT_BOUNDS_MS.length - 1] as number)}`;
  return `${seconds(WAIT_BOUNDS_MS[index - 1] as number)}–${seconds(WAIT_BOUNDS_MS[index] as number)}`;
}

function rollUp(
  query: AuditStatsQuery,
  rows: readonly StatsGroupRow[],
  ruleList: readonly RuleDescriptor[],
  headSequence: number,
  top: number,
  eras: ReadonlyMap<string, string>,
): AuditStats {
  const totals = emptyCounts();
  const keys = bucketKeys(query);
  const timeline = new Map<string, StatsBucket>(
    keys.map(({ key, start, label }) => [key, { start, label, ...emptyCounts() }]),
  );
  const tools = new Map<string, ToolStats>();
  const servers = new Map<string, ServerStats>();
  const deciders = new Map<string, Decider>();
  const histogram = Array.from({ length: WAIT_BOUNDS_MS.length + 1 }, (_, index) => ({
    upToMs: WAIT_BOUNDS_MS[index] ?? null,
    label: waitLabel(index),
    count: 0,
  }));
  let waitSum = 0;
  let waitMax: number | null = null;

  for (const [
    bucket,
    kind,
    serverName,
    toolName,
    earlier,
    decision,
    actor,
    source,
    waitBucket,
    count,
    sum,
    max,
  ] of rows) {
    const name = countOf(decision, actor);
    if (name === null) continue;
    add(totals, name, count);
    const slot = timeline.get(bucket);
    if (slot) add(slot, name, count);
    // Calls made under the name before the server that has it now: apart, marked with when that server came.
    const until = earlier === 1 ? eras.get(serverName) : undefined;
    const era = until === undefined ? {} : { until };
    const toolKey = `${serverName}\u0000${toolName}\u0000${until ?? ''}`;
    let tool = tools.get(toolKey);
    if (!tool) tools.set(toolKey, (tool = { serverName, toolName, ...era, ...emptyCounts() }));
    add(tool, name, count);
    const serverKey = `${serverName}\u0000${until ?? ''}`;
    let server = servers.get(serverKey);
    if (!server) servers.set(serverKey, (server = { serverName, ...era, ...emptyCounts() }));
    add(server, name, count);
    if (source !== null && (name === 'allowedByPolicy' || name === 'deniedByPolicy')) {
      const decider = classifyDecider(source, kind, actor);
      let entry = deciders.get(decider.label);
      if (!entry) deciders.set(decider.label, (entry = { ...decider, ruleId: null, allowed: 0, denied: 0 }));
      if (name === 'allowedByPolicy') entry.allowed += count;
      else entry.denied += count;
    }
    if (waitBucket !== null && sum !== null && max !== null) {
      (histogram[waitBucket] as { count: number }).count += count;
      waitSum += sum;
      waitMax = waitMax === null ? max : Math.max(waitMax, max);
    }
  }

  const rules: RuleStats[] = [];
  for (const { texts, ...rule } of ruleList) {
    let decided = 0;
    for (const text of texts) {
      const entry = deciders.get(text);
      if (!entry) continue;
      entry.ruleId = rule.ruleId;
      decided += entry.allowed + entry.denied;
    }
    rules.push({ ...rule, decided });
  }
  rules.sort((a, b) => b.decided - a.decided);

  const measured = histogram.reduce((sum, bucket) => sum + bucket.count, 0);
  let medianBucket: string | null = null;
  for (let index = 0, seen = 0; index < histogram.length && measured > 0; index++) {
    seen += (histogram[index] as { count: number }).count;
    if (seen * 2 >= measured) {
      medianBucket = (histogram[index] as { label: string }).label;
      break;
    }
  }
  const waiting: WaitStats = {
    measured,
    medianBucket,
    meanMs: measured > 0 ? waitSum / measured : null,
    maxMs: waitMax,
    histogram,
    timedOut: totals.timedOut,
  };
  const byAsked = <T extends DecisionCounts>(a: T, b: T): number => b.asked - a.asked || b.total - a.total;
  return {
    from: new Date(query.from).toISOString(),
    to: new Date(query.to).toISOString(),
    bucket: query.bucket ?? 'day',
    totals,
    timeline: [...timeline.values()],
    tools: [...tools.values()].sort(byAsked).slice(0, top),
    servers: [...servers.values()].sort(byAsked).slice(0, TOP),
    deciders: [...deciders.values()].sort((a, b) => b.allowed + b.denied - (a.allowed + a.denied)),
    rules,
    waiting,
    headSequence,
  };
}
