import { useEffect, useMemo, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import { serverLabel, type AuditStats, type Suggestion } from '../../../../shared/audit-stats';
import { DownloadIcon } from '../../components/icons';
import { AuditFilterBar, CallFilterFields, FilterSelect } from '../audit/AuditFilterBar';
import type { AuditFilters } from '../audit/audit-filters';
import { saveBlob } from '../audit/export-download';
import { rememberedStore } from '../../state/remembered';
import { Notice, PageHeader, errorText } from '../common';
import { BarChart } from './BarChart';
import { ChartExport } from './ChartExport';
import { rowsSvg } from './chart-svg';
import { rowsFilter, SERIES, statsCsv, type InsightFilters } from './insights-data';
import './insights.css';

const PERIODS = [
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000, bucket: 'hour' },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000, bucket: 'day' },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86_400_000, bucket: 'day' },
  { id: '90d', label: 'Last 90 days', ms: 90 * 86_400_000, bucket: 'day' },
] as const;

const KIND_OPTIONS = [
  { value: '', label: 'Everything' },
  { value: 'tool', label: 'Tool calls' },
  { value: 'sampling', label: 'Sampling' },
  { value: 'elicitation', label: 'Elicitation' },
  { value: 'app-tool-call', label: 'App calls' },
];

const EMPTY: InsightFilters = { serverName: '', toolName: '', chatId: '', kind: '' };

/**
 * Approval insights (docs/user/insights.md): what was asked and decided over a period, as charts, and suggestions from
 * the evidence. Every bar and every count opens its rows in the audit viewer (`onOpenRows`).
 */
export function InsightsPage({
  api,
  onOpenRows,
  onOpenApprovals,
}: {
  api: WorkbenchApi;
  onOpenRows(filters: AuditFilters): void;
  /** Settings › Approvals, where an accepted suggestion's rule is highlighted with Undo. */
  onOpenApprovals(): void;
}): React.JSX.Element {
  const [periodId, setPeriodId] = useState<(typeof PERIODS)[number]['id']>('7d');
  const [filters, setFilters] = useState<InsightFilters>(EMPTY);
  const [stats, setStats] = useState<AuditStats | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [suggestions, setSuggestions] = useState<Suggestion[] | null>(null);
  const [accepted, setAccepted] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [chats, setChats] = useState<{ id: string; title: string }[]>([]);

  const period = PERIODS.find((entry) => entry.id === periodId) ?? PERIODS[1];
  useEffect(() => {
    let current = true;
    const to = Date.now();
    api.audit
      .stats({
        from: new Date(to - period.ms).toISOString(),
        to: new Date(to + 1).toISOString(),
        bucket: period.bucket,
        utcOffsetMinutes: -new Date().getTimezoneOffset(),
        ...(filters.serverName.trim() ? { serverName: filters.serverName.trim() } : {}),
        ...(filters.toolName.trim() ? { toolName: filters.toolName.trim() } : {}),
        ...(filters.chatId ? { chatId: filters.chatId } : {}),
        ...(filters.kind ? { kind: filters.kind } : {}),
      })
      .then(
        (figures) => current && (setStats(figures), setProblem(null)),
        (failure: unknown) => current && setProblem(errorText(failure)),
      );
    return () => {
      current = false;
    };
  }, [api, period, filters, reload]);

  useEffect(() => {
    api.audit.suggestions({ days: 7 }).then(
      (answer) => setSuggestions(answer.suggestions),
      (failure: unknown) => setProblem(errorText(failure)),
    );
    api.chat.list().then(
      (list) => setChats(list.chats.map((chat) => ({ id: chat.id, title: chat.title }))),
      () => undefined,
    );
  }, [api, reload]);

  const timeline = useMemo(() => {
    if (!stats) return null;
    return {
      labels: stats.timeline.map((bucket) => bucket.label),
      series: SERIES.map((entry) => ({
        label: entry.label,
        color: entry.color,
        values: stats.timeline.map((bucket) => bucket[entry.name]),
      })),
    };
  }, [stats]);
  const waits = useMemo(() => {
    if (!stats) return null;
    return {
      labels: stats.waiting.histogram.map((bucket) => bucket.label),
      series: [{ label: 'Calls', color: '#4c7bd9', values: stats.waiting.histogram.map((bucket) => bucket.count) }],
    };
  }, [stats]);

  const open = (pick: Parameters<typeof rowsFilter>[2], range?: Parameters<typeof rowsFilter>[0]): void => {
    if (!stats) return;
    onOpenRows(rowsFilter(range ?? { from: stats.from, to: stats.to }, filters, pick));
  };
  const setFilter = <K extends keyof InsightFilters>(key: K, value: InsightFilters[K]): void =>
    setFilters((current) => ({ ...current, [key]: value }));

  const accept = async (suggestion: Suggestion): Promise<void> => {
    try {
      const result = await api.audit.acceptSuggestion({ id: suggestion.id, days: 7 });
      if (suggestion.kind === 'allow-tool')
        rememberedStore.set({
          chatId: '',
          serverName: suggestion.serverName,
          toolName: suggestion.toolName,
          action: { kind: 'rule', id: result.ruleId, args: suggestion.args },
          at: Date.now(),
          source: 'insights',
        });
      setAccepted(`${result.change} To undo: ${result.undo}`);
      setReload((value) => value + 1);
    } catch (failure) {
      setProblem(errorText(failure));
    }
  };

  const maxTool = Math.max(1, ...(stats?.tools.map((tool) => tool.total) ?? [1]));
  return (
    <div className="settings-page settings-page-wide" data-testid="insights-page">
      <PageHeader
        title="Insights"
        description="What was asked and decided, as charts. Every bar and number opens the matching rows of the audit log."
        actions={
          <button
            type="button"
            className="button"
            disabled={!stats}
            onClick={() =>
              stats &&
              saveBlob(new Blob([statsCsv(stats)], { type: 'text/csv' }), `ai-workbench-insights-${periodId}.csv`)
            }
          >
            <DownloadIcon size={14} /> Export CSV
          </button>
        }
      />
      <AuditFilterBar label="Filter the insights">
        <FilterSelect
          label="Period"
          value={periodId}
          options={PERIODS.map((entry) => ({ value: entry.id, label: entry.label }))}
          onChange={(value) => setPeriodId(value as typeof periodId)}
        />
        <CallFilterFields
          idPrefix="insights"
          chats={chats}
          servers={[...new Set(stats?.servers.map((server) => server.serverName) ?? [])]}
          tools={[...new Set(stats?.tools.map((tool) => tool.toolName) ?? [])].sort()}
          values={filters}
          onChange={(key, value) => setFilter(key, value)}
        />
        <FilterSelect
          label="Kind"
          value={filters.kind}
          options={KIND_OPTIONS}
          onChange={(value) => setFilter('kind', value as InsightFilters['kind'])}
        />
      </AuditFilterBar>
      {problem && <Notice kind="error">{problem}</Notice>}
      {accepted && (
        <Notice kind="success">
          {accepted}{' '}
          <button type="button" className="link-button" onClick={onOpenApprovals}>
            Show in Settings › Approvals
          </button>
        </Notice>
      )}
      {!stats && !problem && <p className="muted">Loading…</p>}
      {stats && (
        <>
          <ul className="insights-tiles" aria-label="Totals">
            {[
              ['Decisions', stats.totals.total, {}],
              [
                'Asked you',
                stats.totals.asked,
                { decisions: ['allow_once', 'allow_session', 'deny', 'timeout', 'cancelled'] as const },
              ],
              ['Ran without asking', stats.totals.allowedByPolicy, { series: 'allowedByPolicy' as const }],
              ['Stopped by a rule', stats.totals.deniedByPolicy, { series: 'deniedByPolicy' as const }],
              ['Timed out', stats.totals.timedOut, { series: 'timedOut' as const }],
            ].map(([label, value, pick]) => (
              <li key={label as string}>
                <button
                  type="button"
                  className="insights-tile"
                  onClick={() => open(pick as Parameters<typeof rowsFilter>[2])}
                >
                  <span className="insights-tile-value">{(value as number).toLocaleString()}</span>
                  <span className="insights-tile-label">{label as string}</span>
                </button>
              </li>
            ))}
          </ul>
          {timeline && (
            <BarChart
              title={`Decisions by ${stats.bucket}`}
              fileName={`decisions-by-${stats.bucket}`}
              labels={timeline.labels}
              series={timeline.series}
              onPick={(index, series) => {
                const bucket = stats.timeline[index];
                if (!bucket) return;
                const end = stats.timeline[index + 1]?.start ?? stats.to;
                open({ series: SERIES[series]?.name }, { from: bucket.start, to: end });
              }}
            />
          )}
          <section className="insights-section" aria-labelledby="insights-tools">
            <div className="insights-section-title">
              <h3 id="insights-tools">Tools asked about most</h3>
              {stats.tools.length > 0 && (
                <ChartExport
                  title="Tools asked about most"
                  fileName="tools-asked-about-most"
                  svg={() =>
                    rowsSvg(
                      'Tools asked about most',
                      stats.tools.map((tool) => ({
                        label: `${serverLabel(tool)}.${tool.toolName}`,
                        values: SERIES.map((entry) => tool[entry.name]),
                      })),
                      SERIES,
                    )
                  }
                />
              )}
            </div>
            {stats.tools.length === 0 ? (
              <p className="muted">No decisions in this period.</p>
            ) : (
              <table className="table insights-bars" aria-label="Tools asked about most">
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">How it was answered</th>
                    <th scope="col">Asked</th>
                    <th scope="col">Total</th>
                  </tr>
                </thead>
                <tbody>
                  {stats.tools.map((tool) => (
                    <tr key={`${tool.serverName}.${tool.toolName}.${tool.until ?? ''}`}>
                      <th scope="row" className="mono small">
                        {tool.serverName}.{tool.toolName}
                        {tool.until !== undefined && (
                          <span className="muted"> {serverLabel(tool).slice(tool.serverName.length + 1)}</span>
                        )}
                      </th>
                      <td>
                        <div className="insights-stack" style={{ width: `${(tool.total / maxTool) * 100}%` }}>
                          {SERIES.filter((entry) => tool[entry.name] > 0).map((entry) => (
                            <button
                              type="button"
                              key={entry.name}
                              className="insights-stack-part"
                              style={{ flexGrow: tool[entry.name], background: entry.color }}
                              aria-label={`${serverLabel(tool)}.${tool.toolName}: ${tool[entry.name]} ${entry.label}; show the rows`}
                              title={`${entry.label}: ${tool[entry.name]}`}
                              onClick={() =>
                                open(
                                  { serverName: tool.serverName, toolName: tool.toolName, series: entry.name },
                                  // An earlier server's calls: those made until the current one came.
                                  tool.until === undefined
                                    ? undefined
                                    : {
                                        from: stats.from,
                                        to: new Date(Date.parse(tool.until) + 1).toISOString(),
                                        exactEnd: true,
                                      },
                                )
                              }
                            />
                          ))}
                        </div>
                      </td>
                      <td>{tool.asked}</td>
                      <td>{tool.total}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className="insights-section" aria-labelledby="insights-deciders">
            <h3 id="insights-deciders">What ran or was stopped without asking</h3>
            {stats.deciders.length === 0 ? (
              <p className="muted">Nothing ran or was stopped without asking in this period.</p>
            ) : (
              <table className="table" aria-label="What ran or was stopped without asking">
                <thead>
                  <tr>
                    <th scope="col">Decided by</th>
                    <th scope="col">Allowed</th>
                    <th scope="col">Denied</th>
                  </tr>
                </thead>
                <tbody>
                  {stats.deciders.map((decider) => (
                    <tr key={decider.label}>
                      <th scope="row" className="small">
                        {decider.label}
                      </th>
                      <td>
                        <button
                          type="button"
                          className="link-button"
                          disabled={decider.allowed === 0}
                          onClick={() =>
                            open({ decidedBy: decider.decidedBy, decisions: ['auto_allow', 'session_grant'] })
                          }
                        >
                          {decider.allowed}
                        </button>
                      </td>
                      <td>
                        <button
                          type="button"
                          className="link-button"
                          disabled={decider.denied === 0}
                          onClick={() => open({ decidedBy: decider.decidedBy, decisions: ['auto_deny', 'deny'] })}
                        >
                          {decider.denied}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {stats.rules.length > 0 && (
              <ul className="insights-rules" aria-label="Your rules in this period">
                {stats.rules.map((rule) => (
                  <li key={`${rule.managed ? 'm' : 'u'}-${rule.ruleId}`}>
                    <span className="small">
                      {rule.name}: {rule.description}
                    </span>{' '}
                    <span
                      className={`badge tone-${rule.decided > 0 ? 'good' : rule.effect === 'ask' ? 'off' : 'warn'}`}
                    >
                      {rule.effect === 'ask'
                        ? 'asks (decides nothing alone)'
                        : rule.decided > 0
                          ? `decided ${rule.decided}`
                          : 'never matched'}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          {waits && (
            <BarChart
              title={`Time to decide (${stats.waiting.measured} calls${stats.waiting.medianBucket ? `, median ${stats.waiting.medianBucket}` : ''}; ${stats.waiting.timedOut} timed out)`}
              fileName="time-to-decide"
              labels={waits.labels}
              series={waits.series}
              height={160}
              onPick={() => open({ decisions: ['allow_once', 'allow_session', 'deny', 'timeout'] })}
            />
          )}
        </>
      )}
      <section className="insights-section" aria-labelledby="insights-suggestions" data-testid="insights-suggestions">
        <h3 id="insights-suggestions">Suggestions from the last 7 days</h3>
        {suggestions?.length === 0 && (
          <p className="muted">
            No suggestions: nothing you answer the same way every time, no unused or overlapping rules.
          </p>
        )}
        <ul className="insights-suggestion-list">
          {suggestions?.map((suggestion) => (
            <li key={suggestion.id} className="insights-suggestion">
              <p>{suggestion.text}</p>
              {suggestion.kind === 'allow-tool' && (
                <>
                  <p className="muted small">{suggestion.change}</p>
                  <details className="insights-allows">
                    <summary>
                      What it would allow: {suggestion.allows.length}{' '}
                      {suggestion.allows.length === 1 ? 'call' : 'different calls'}, nothing else
                    </summary>
                    <ul aria-label={`Calls the rule for ${suggestion.serverName}.${suggestion.toolName} would allow`}>
                      {suggestion.allows.map((call) => (
                        <li key={call}>
                          <code>{call}</code>
                        </li>
                      ))}
                    </ul>
                  </details>
                </>
              )}
              <div className="insights-suggestion-actions">
                <button
                  type="button"
                  className="button button-small"
                  onClick={() =>
                    onOpenRows(
                      rowsFilter(suggestion.evidence, filters, {
                        ...(suggestion.evidence.serverName ? { serverName: suggestion.evidence.serverName } : {}),
                        ...(suggestion.evidence.toolName ? { toolName: suggestion.evidence.toolName } : {}),
                        ...(suggestion.evidence.decidedBy ? { decidedBy: suggestion.evidence.decidedBy } : {}),
                        decisions: suggestion.evidence.decisions as Parameters<typeof rowsFilter>[2]['decisions'],
                      }),
                    )
                  }
                >
                  Show the {suggestion.evidence.count} calls
                </button>
                {suggestion.kind === 'allow-tool' && (
                  <button
                    type="button"
                    className="button button-small button-primary"
                    onClick={() => void accept(suggestion)}
                  >
                    Allow without asking
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
