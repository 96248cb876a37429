import type { AuditDecision } from '../../../../shared/audit';
import {
  serverLabel,
  type AuditStats,
  type DecisionCountName,
  type InsightCallKind,
} from '../../../../shared/audit-stats';
import { EMPTY_FILTERS, type AuditFilters } from '../audit/audit-filters';

/** The series of "Decisions over time", in stacking order, with their words and colours (readable on light and dark). */
export const SERIES: readonly {
  name: DecisionCountName;
  label: string;
  color: string;
  decisions: readonly AuditDecision[];
  actor?: 'user';
}[] = [
  { name: 'allowedByYou', label: 'Allowed by you', color: '#2f9e6a', decisions: ['allow_once', 'allow_session'] },
  {
    name: 'allowedByPolicy',
    label: 'Allowed by a rule or setting',
    color: '#4c7bd9',
    decisions: ['auto_allow', 'session_grant'],
  },
  { name: 'deniedByYou', label: 'Denied by you', color: '#d9534f', decisions: ['deny'], actor: 'user' },
  { name: 'deniedByPolicy', label: 'Denied by a rule', color: '#a0527a', decisions: ['auto_deny'] },
  { name: 'timedOut', label: 'Timed out', color: '#c98a1b', decisions: ['timeout'] },
  { name: 'cancelled', label: 'Cancelled', color: '#8a8f98', decisions: ['cancelled'] },
];

export interface InsightFilters {
  serverName: string;
  toolName: string;
  chatId: string;
  kind: '' | InsightCallKind;
}

/** A kind of call as the audit viewer's filters find its decision rows: the model's tool calls apart from an app's. */
const KIND_ROWS = {
  tool: { kind: 'decision', requestedBy: 'model' },
  sampling: { kind: 'sampling', requestedBy: '' },
  elicitation: { kind: 'elicitation', requestedBy: '' },
  'app-tool-call': { kind: 'decision', requestedBy: 'app' },
} as const satisfies Record<InsightCallKind, Pick<AuditFilters, 'kind' | 'requestedBy'>>;

/** A `datetime-local` value for an instant, in the person's time; `exact` keeps its seconds and milliseconds. */
function local(iso: string, roundUp = false, exact = false): string {
  const date = new Date(iso);
  // The viewer's fields hold whole minutes: a period's end is rounded up, so the rows of its last minute stay in it.
  if (roundUp && !exact && (date.getSeconds() > 0 || date.getMilliseconds() > 0)) date.setSeconds(60, 0);
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  const minutes = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return exact ? `${minutes}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}` : minutes;
}

/** The audit viewer's filters for a bar or a row of a chart: the period (or one bucket), the page's filters, what was picked. */
export function rowsFilter(
  /** `exactEnd`: the end is an instant to the millisecond (an earlier server's last call), not rounded to the minute. */
  period: { from: string; to: string; exactEnd?: boolean },
  filters: InsightFilters,
  pick: {
    serverName?: string;
    toolName?: string;
    series?: DecisionCountName;
    decidedBy?: string;
    decisions?: readonly AuditDecision[];
  },
): AuditFilters {
  const series = pick.series === undefined ? undefined : SERIES.find((entry) => entry.name === pick.series);
  const decisions = pick.decisions ?? series?.decisions;
  return {
    ...EMPTY_FILTERS,
    from: local(period.from),
    to: local(period.to, true, period.exactEnd === true),
    chatId: filters.chatId,
    serverName: pick.serverName ?? filters.serverName,
    toolName: pick.toolName ?? filters.toolName,
    ...(filters.kind === '' ? {} : KIND_ROWS[filters.kind]),
    actor: series?.actor ?? '',
    ...(decisions && decisions.length > 0 ? { decisions } : {}),
    ...(pick.decidedBy ? { decidedBy: pick.decidedBy } : {}),
  };
}

function csvCell(value: string | number): string {
  const text = String(value);
  // A leading = + - @ would be read as a formula by a spreadsheet.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The page's figures as one CSV: a section per chart, each with its own header row. */
export function statsCsv(stats: AuditStats): string {
  const counts = ['asked', ...SERIES.map((entry) => entry.name)] as const;
  const lines: (string | number)[][] = [['# AI Workbench approval insights', `${stats.from} to ${stats.to}`]];
  lines.push([], ['section', 'period', ...counts]);
  for (const bucket of stats.timeline)
    lines.push(['decisions over time', bucket.label, ...counts.map((name) => bucket[name])]);
  lines.push([], ['section', 'server', 'tool', ...counts]);
  for (const tool of stats.tools)
    lines.push(['tools', serverLabel(tool), tool.toolName, ...counts.map((name) => tool[name])]);
  for (const server of stats.servers)
    lines.push(['servers', serverLabel(server), '', ...counts.map((name) => server[name])]);
  lines.push([], ['section', 'decided by', 'kind', 'allowed', 'denied']);
  for (const decider of stats.deciders)
    lines.push(['ran or stopped without asking', decider.label, decider.kind, decider.allowed, decider.denied]);
  lines.push([], ['section', 'rule', 'effect', 'decided']);
  for (const rule of stats.rules) lines.push(['rules', `${rule.name}: ${rule.description}`, rule.effect, rule.decided]);
  lines.push([], ['section', 'waited', 'calls']);
  for (const bucket of stats.waiting.histogram) lines.push(['time to decide', bucket.label, bucket.count]);
  return `${lines.map((line) => line.map(csvCell).join(',')).join('\n')}\n`;
}
