import type { AuditDecision } from '../../../../shared/audit';
import type { AuditStats, DecisionCountName } from '../../../../shared/audit-stats';
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
  kind: '' | 'tool' | 'sampling' | 'elicitation';
}

const KIND_ROWS = { tool: 'decision', sampling: 'sampling', elicitation: 'elicitation' } as const;

/** A `datetime-local` value for an instant, in the person's time. */
function local(iso: string, roundUp = false): string {
  const date = new Date(iso);
  // The viewer's fields hold whole minutes: a period's end is rounded up, so the rows of its last minute stay in it.
  if (roundUp && (date.getSeconds() > 0 || date.getMilliseconds() > 0)) date.setSeconds(60, 0);
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The audit viewer's filters for a bar or a row of a chart: the period (or one bucket), the page's filters, what was picked. */
export function rowsFilter(
  period: { from: string; to: string },
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
    to: local(period.to, true),
    chatId: filters.chatId,
    serverName: pick.serverName ?? filters.serverName,
    toolName: pick.toolName ?? filters.toolName,
    kind: filters.kind === '' ? '' : KIND_ROWS[filters.kind],
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
    lines.push(['tools', tool.serverName, tool.toolName, ...counts.map((name) => tool[name])]);
  for (const server of stats.servers)
    lines.push(['servers', server.serverName, '', ...counts.map((name) => server[name])]);
  lines.push([], ['section', 'decided by', 'kind', 'allowed', 'denied']);
  for (const decider of stats.deciders)
    lines.push(['ran or stopped without asking', decider.label, decider.kind, decider.allowed, decider.denied]);
  lines.push([], ['section', 'rule', 'effect', 'decided']);
  for (const rule of stats.rules) lines.push(['rules', `${rule.name}: ${rule.description}`, rule.effect, rule.decided]);
  lines.push([], ['section', 'waited', 'calls']);
  for (const bucket of stats.waiting.histogram) lines.push(['time to decide', bucket.label, bucket.count]);
  return `${lines.map((line) => line.map(csvCell).join(',')).join('\n')}\n`;
}

/** A stacked bar chart as SVG, drawn from the same figures as the canvas (for a report). */
export function barsSvg(
  title: string,
  labels: readonly string[],
  series: readonly { label: string; color: string; values: readonly number[] }[],
): string {
  const width = 720;
  const height = 320;
  const left = 48;
  const bottom = 48;
  const top = 32;
  const totals = labels.map((_, index) => series.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const slot = (width - left - 8) / Math.max(1, labels.length);
  const scale = (value: number): number => (value / max) * (height - top - bottom);
  const escape = (text: string): string => text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
  const parts: string[] = [];
  labels.forEach((label, index) => {
    let y = height - bottom;
    for (const entry of series) {
      const value = entry.values[index] ?? 0;
      if (value === 0) continue;
      const h = scale(value);
      y -= h;
      parts.push(
        `<rect x="${(left + index * slot + slot * 0.15).toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="${entry.color}"><title>${escape(`${label}: ${entry.label} ${value}`)}</title></rect>`,
      );
    }
    if (labels.length <= 31 || index % Math.ceil(labels.length / 31) === 0) {
      parts.push(
        `<text x="${(left + index * slot + slot / 2).toFixed(1)}" y="${height - bottom + 14}" font-size="9" text-anchor="end" transform="rotate(-40 ${(left + index * slot + slot / 2).toFixed(1)} ${height - bottom + 14})">${escape(label)}</text>`,
      );
    }
  });
  const legend = series.map(
    (entry, index) =>
      `<rect x="${left + index * 110}" y="8" width="10" height="10" fill="${entry.color}"/><text x="${left + index * 110 + 14}" y="17" font-size="10">${escape(entry.label)}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif"><title>${escape(title)}</title><rect width="100%" height="100%" fill="#fff"/>${legend.join('')}<text x="4" y="${top}" font-size="10">${max}</text><line x1="${left}" y1="${height - bottom}" x2="${width - 8}" y2="${height - bottom}" stroke="#999"/>${parts.join('')}</svg>`;
}
