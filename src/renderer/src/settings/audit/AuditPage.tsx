import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import {
  AuditActorSchema,
  AuditDecisionSchema,
  type AuditEntry,
  type AuditExportFormat,
  type AuditQueryInput,
  type AuditVerifyResult,
} from '../../../../shared/audit';
import { Notice, PageHeader, errorText, formatShortTime, formatTime } from '../common';
import { DownloadIcon } from '../../components/icons';
import {
  ACTOR_LABELS,
  DECISION_LABELS,
  EMPTY_FILTERS,
  REQUESTED_BY_LABELS,
  decisionTone,
  rowSummary,
  toAuditQuery,
  type AuditFilters,
} from './audit-filters';
import { AuditFilterBar, CallFilterFields, FilterSelect, FilterText } from './AuditFilterBar';
import { AuditRowDetail } from './AuditRowDetail';
import { fetchExport, saveBlob } from './export-download';

export const AUDIT_PAGE_SIZE = 50;

type VerifyState =
  { state: 'running' } | { state: 'done'; result: AuditVerifyResult } | { state: 'failed'; error: string };
type ExportState =
  | { state: 'running'; format: AuditExportFormat; percent: number }
  | { state: 'done'; text: string }
  | { state: 'failed'; error: string };

/** The audit log: filters, pages of rows (newest first), a row's detail, Verify and Export. */
export function AuditPage({
  api,
  initialFilters,
}: {
  api: WorkbenchApi;
  initialFilters?: AuditFilters | undefined;
}): React.JSX.Element {
  const [filters, setFilters] = useState<AuditFilters>(initialFilters ?? EMPTY_FILTERS);
  /** Cursors of the pages before this one: the first page has none. */
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [detail, setDetail] = useState<AuditEntry | null>(null);
  const [verify, setVerify] = useState<VerifyState | null>(null);
  const [exporting, setExporting] = useState<ExportState | null>(null);
  const [chats, setChats] = useState<{ id: string; title: string }[]>([]);
  const [servers, setServers] = useState<string[]>([]);
  const [tools, setTools] = useState<string[]>([]);

  const cursor = cursors.at(-1) ?? null;

  const built = toAuditQuery(filters, cursor, AUDIT_PAGE_SIZE);
  const filterProblem = 'problem' in built ? built.problem : null;
  const query = 'query' in built ? JSON.stringify(built.query) : null;

  useEffect(() => {
    if (query === null) return;
    let current = true;
    api.audit.query(JSON.parse(query) as AuditQueryInput).then(
      (page) => {
        if (!current) return;
        setEntries(page.entries);
        setNextCursor(page.nextCursor);
        setProblem(null);
      },
      (failure: unknown) => current && setProblem(errorText(failure)),
    );
    return () => {
      current = false;
    };
  }, [api, query]);

  useEffect(() => {
    Promise.all([api.chat.list(), api.mcp.list(), api.mcp.tools()]).then(
      ([chatList, serverList, toolList]) => {
        setChats(chatList.chats.map((chat) => ({ id: chat.id, title: chat.title })));
        setServers(serverList.servers.map((server) => server.name));
        setTools([...new Set(toolList.tools.map((tool) => tool.name))].sort());
      },
      () => undefined, // the suggestions are a convenience; the filters work without them
    );
  }, [api]);

  const setFilter = <K extends keyof AuditFilters>(key: K, value: AuditFilters[K]): void => {
    setFilters((current) => ({ ...current, [key]: value }));
    setCursors([null]);
  };

  const runVerify = async (): Promise<void> => {
    setVerify({ state: 'running' });
    try {
      setVerify({ state: 'done', result: await api.audit.verify() });
    } catch (failure) {
      setVerify({ state: 'failed', error: errorText(failure) });
    }
  };

  const showRow = async (sequence: number): Promise<void> => {
    try {
      const page = await api.audit.query({ cursor: String(sequence + 1), limit: 1 });
      const entry = page.entries[0];
      if (entry && entry.sequence === sequence) setDetail(entry);
      else setProblem(`Row #${sequence} is not in the log any more.`);
    } catch (failure) {
      setProblem(errorText(failure));
    }
  };

  const runExport = async (format: AuditExportFormat): Promise<void> => {
    setExporting({ state: 'running', format, percent: 0 });
    try {
      const { blob, prepared } = await fetchExport(api, format, (done, total) =>
        setExporting({ state: 'running', format, percent: total === 0 ? 100 : Math.round((done / total) * 100) }),
      );
      saveBlob(blob, prepared.fileName);
      setExporting({
        state: 'done',
        text: `Exported ${prepared.rowCount.toLocaleString()} rows as ${prepared.fileName}.`,
      });
    } catch (failure) {
      setExporting({ state: 'failed', error: errorText(failure) });
    }
  };

  const brokenSequence = verify?.state === 'done' && !verify.result.ok ? verify.result.problem.sequence : null;
  const pageNumber = cursors.length;
  const filtered = Object.values(filters).some((value) => value !== '');

  return (
    <div className="settings-page settings-page-wide" data-testid="audit-page">
      <PageHeader
        title="Audit log"
        description="Every decision about a tool call, every result and every change of the approval policy, in a tamper-evident chain. Arguments are stored redacted, with a hash of the original."
        actions={
          <>
            <button
              type="button"
              className="button"
              onClick={() => void runVerify()}
              disabled={verify?.state === 'running'}
            >
              Verify
            </button>
            <button
              type="button"
              className="button"
              onClick={() => void runExport('csv')}
              disabled={exporting?.state === 'running'}
            >
              <DownloadIcon size={14} /> Export CSV
            </button>
            <button
              type="button"
              className="button"
              onClick={() => void runExport('jsonl')}
              disabled={exporting?.state === 'running'}
            >
              <DownloadIcon size={14} /> Export JSONL
            </button>
          </>
        }
      />
      <div data-testid="verify-result">
        {verify?.state === 'running' && <Notice kind="info">Verifying the chain…</Notice>}
        {verify?.state === 'failed' && <Notice kind="error">Verification could not run: {verify.error}</Notice>}
        {verify?.state === 'done' &&
          (verify.result.ok ? (
            <Notice kind="success">
              The chain is intact: {verify.result.rowCount.toLocaleString()} rows checked, head #
              {verify.result.head.sequence} <span className="mono">{verify.result.head.hash.slice(0, 16)}…</span>
            </Notice>
          ) : (
            <Notice kind="error">
              The log was tampered with at row #{verify.result.problem.sequence} ({verify.result.problem.kind}):{' '}
              {verify.result.problem.message} {verify.result.rowCount.toLocaleString()} rows before it verified.{' '}
              <button
                type="button"
                className="link-button"
                onClick={() => void showRow(verify.result.ok ? 0 : verify.result.problem.sequence)}
              >
                Show row #{verify.result.problem.sequence}
              </button>
            </Notice>
          ))}
      </div>
      {exporting?.state === 'running' && (
        <Notice kind="info">
          Exporting {exporting.format.toUpperCase()}… {exporting.percent}%
        </Notice>
      )}
      {exporting?.state === 'done' && <Notice kind="success">{exporting.text}</Notice>}
      {exporting?.state === 'failed' && <Notice kind="error">Export failed: {exporting.error}</Notice>}

      <AuditFilterBar label="Filter the audit log">
        <FilterText
          label="From"
          type="datetime-local"
          value={filters.from}
          onChange={(value) => setFilter('from', value)}
        />
        <FilterText label="To" type="datetime-local" value={filters.to} onChange={(value) => setFilter('to', value)} />
        <CallFilterFields
          idPrefix="audit"
          chats={chats}
          servers={servers}
          tools={tools}
          values={filters}
          onChange={(key, value) => setFilter(key, value)}
        />
        <FilterSelect
          label="Decision"
          value={filters.decision}
          options={[
            { value: '', label: 'Any' },
            ...AuditDecisionSchema.options.map((decision) => ({ value: decision, label: DECISION_LABELS[decision] })),
          ]}
          onChange={(value) => setFilter('decision', value === '' ? '' : AuditDecisionSchema.parse(value))}
        />
        <FilterSelect
          label="Actor"
          value={filters.actor}
          options={[
            { value: '', label: 'Anyone' },
            ...AuditActorSchema.options.map((actor) => ({ value: actor, label: ACTOR_LABELS[actor] })),
          ]}
          onChange={(value) => setFilter('actor', value === '' ? '' : AuditActorSchema.parse(value))}
        />
        <FilterSelect
          label="Rows"
          value={filters.kind}
          options={[
            { value: '', label: 'Every row' },
            { value: 'decision', label: 'Decisions' },
            { value: 'result', label: 'Results' },
            { value: 'sampling', label: 'Sampling requests' },
            { value: 'elicitation', label: 'Elicitation requests' },
            { value: 'policy', label: 'Policy changes' },
            { value: 'task', label: 'Tasks' },
          ]}
          onChange={(value) => setFilter('kind', value as AuditFilters['kind'])}
        />
        <FilterSelect
          label="Requested by"
          value={filters.requestedBy}
          options={[
            { value: '', label: 'Anyone' },
            { value: 'model', label: REQUESTED_BY_LABELS.model },
            { value: 'app', label: REQUESTED_BY_LABELS.app },
            { value: 'server', label: REQUESTED_BY_LABELS.server },
          ]}
          onChange={(value) => setFilter('requestedBy', value as AuditFilters['requestedBy'])}
        />
      </AuditFilterBar>
      {(filters.decisions !== undefined || filters.decidedBy !== undefined) && (
        <p className="muted small" data-testid="audit-insights-filter">
          From Insights:
          {filters.decisions && filters.decisions.length > 0
            ? ` ${filters.decisions.map((decision) => DECISION_LABELS[decision]).join(' or ')}`
            : ''}
          {filters.decidedBy ? ` decided by “${filters.decidedBy}”` : ''}
        </p>
      )}
      <div className="audit-toolbar">
        <span className="muted small">
          {entries && entries.length > 0
            ? `Rows #${entries.at(-1)?.sequence ?? ''}–#${entries[0]?.sequence ?? ''}${filtered ? ' matching the filters' : ''}, newest first`
            : ''}
        </span>
        <button
          type="button"
          className="button button-small"
          disabled={!filtered}
          onClick={() => {
            setFilters(EMPTY_FILTERS);
            setCursors([null]);
          }}
        >
          Clear filters
        </button>
      </div>
      {(filterProblem ?? problem) && <Notice kind="error">{filterProblem ?? problem}</Notice>}
      {entries === null && !problem && <p className="muted">Loading…</p>}
      {entries?.length === 0 && (
        <p className="muted settings-empty">
          {filtered ? 'No row matches these filters.' : 'Nothing recorded yet: rows appear as tools are called.'}
        </p>
      )}
      {entries && entries.length > 0 && (
        <div className="table-scroll">
          <table className="table audit-table" aria-label="Audit log">
            {/* Fixed widths for the short columns; Why, the most useful, takes the rest and wraps (docs/user/audit-log.md). */}
            <colgroup>
              <col className="audit-col-sequence" />
              <col className="audit-col-time" />
              <col className="audit-col-outcome" />
              <col className="audit-col-actor" />
              <col className="audit-col-tool" />
              <col className="audit-col-chat" />
              <col />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Time</th>
                <th scope="col">Outcome</th>
                <th scope="col">Actor</th>
                <th scope="col">Server · tool</th>
                <th scope="col">Chat</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr
                  key={entry.sequence}
                  className={`audit-row${entry.sequence === brokenSequence ? ' is-broken' : ''}`}
                  data-sequence={entry.sequence}
                  tabIndex={0}
                  aria-label={`Row ${entry.sequence}`}
                  onClick={() => setDetail(entry)}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter' || event.key === ' ') {
                      event.preventDefault();
                      setDetail(entry);
                    }
                  }}
                >
                  <td className="mono muted">{entry.sequence}</td>
                  <td className="nowrap small" title={formatTime(entry.time)}>
                    {formatShortTime(entry.time)}
                  </td>
                  <td>
                    {entry.kind === 'policy' ? (
                      <span className="badge tone-warn">Policy change</span>
                    ) : entry.decision ? (
                      <span className={`badge tone-${decisionTone(entry.decision)}`}>
                        {DECISION_LABELS[entry.decision]}
                      </span>
                    ) : (
                      <span className={`badge tone-${entry.outcome === 'error' ? 'bad' : 'info'}`}>
                        {entry.outcome === 'error' ? 'Error' : 'Result'}
                      </span>
                    )}
                  </td>
                  <td className="small">{entry.actor ? ACTOR_LABELS[entry.actor] : '—'}</td>
                  <td className="mono small audit-cut" title={`${entry.serverName} · ${entry.toolName}`}>
                    {entry.serverName === '' && entry.toolName === '' ? '—' : `${entry.serverName} · ${entry.toolName}`}
                  </td>
                  <td className="small audit-cut">
                    {chats.find((chat) => chat.id === entry.chatId)?.title ?? (
                      <span className="mono muted">{entry.chatId}</span>
                    )}
                  </td>
                  <td className="small muted" title={rowSummary(entry)}>
                    <div className="audit-why">{rowSummary(entry)}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label="Audit pages">
        <button
          type="button"
          className="button button-small"
          disabled={cursors.length <= 1}
          onClick={() => setCursors((current) => current.slice(0, -1))}
        >
          ← Newer
        </button>
        <span className="muted small" data-testid="audit-page-number">
          Page {pageNumber}
        </span>
        <button
          type="button"
          className="button button-small"
          disabled={!nextCursor}
          onClick={() => setCursors((current) => [...current, nextCursor])}
        >
          Older →
        </button>
      </nav>
      {detail && (
        <AuditRowDetail
          entry={detail}
          chatTitle={chats.find((chat) => chat.id === detail.chatId)?.title}
          broken={detail.sequence === brokenSequence}
          onClose={() => setDetail(null)}
        />
      )}
    </div>
  );
}
