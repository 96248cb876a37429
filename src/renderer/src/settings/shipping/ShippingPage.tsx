import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { AuditShippingStatus, AuditSinkStatus, AuditSinkView } from '../../../../shared/audit-shipping';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Notice, PageHeader, errorText, formatTime } from '../common';
import { LockNote } from '../approvals/organisation';
import { defaultSinksReason, sinkOverriddenReason } from '../approvals/organisation-reasons';
import { CheckpointsSection } from './CheckpointsSection';
import { SinkForm } from './SinkForm';
import { describeLag, sinkTarget } from './shipping-text';

/** How often the sinks' progress is read again while the page is open. */
const STATUS_EVERY_MS = 2000;

/**
 * Audit shipping (docs/user/audit-shipping.md): the sinks the audit log is shipped to, each with its progress
 * (lag in rows and time, last error) read again every 2 s; add, edit and remove. Header values never come back.
 * The organisation's locked sinks come first, with a lock and without Edit and Remove.
 */
export function ShippingPage({ api }: { api: WorkbenchApi }): React.JSX.Element {
  const [sinks, setSinks] = useState<AuditSinkView[] | null>(null);
  const [locked, setLocked] = useState<AuditSinkView[]>([]);
  // The sinks are the organisation's defaults (docs/user/organisation-policy.md): said above them.
  const [defaulted, setDefaulted] = useState(false);
  const [status, setStatus] = useState<AuditShippingStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<AuditSinkView | 'new' | null>(null);
  const [removing, setRemoving] = useState<AuditSinkView | null>(null);

  const load = useCallback(
    () =>
      api.audit.shippingSinks().then(
        (result) => {
          setSinks(result.sinks);
          setLocked(result.locked);
          setDefaulted(result.defaulted === true);
        },
        (failure: unknown) => setError(errorText(failure)),
      ),
    [api],
  );

  useEffect(() => {
    void load();
    let stopped = false;
    const refresh = (): void => {
      api.audit.shippingStatus().then(
        (next) => {
          if (!stopped) setStatus(next);
        },
        () => {},
      );
    };
    refresh();
    const timer = setInterval(refresh, STATUS_EVERY_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [api, load]);

  const statusOf = (id: string): AuditSinkStatus | undefined => status?.sinks.find((sink) => sink.id === id);

  return (
    <div className="settings-page" data-testid="shipping-page">
      <PageHeader
        title="Audit shipping"
        description="Every audit row, sent to your organisation's log pipeline as it is written: syslog (RFC 5424, TCP or TLS) or OpenTelemetry (OTLP/HTTP). At least once, in order, resumed after any outage."
        actions={
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            Add sink
          </button>
        }
      />
      {error && <Notice kind="error">{error}</Notice>}
      {sinks === null && !error && <p className="muted">Loading…</p>}
      {sinks?.length === 0 && locked.length === 0 && (
        <div className="settings-empty">
          <p>
            The audit log stays on this machine. Add a sink to ship it to a syslog receiver or an OpenTelemetry
            collector.
          </p>
        </div>
      )}
      <ul className="card-list" aria-label="Audit sinks">
        {locked.map((sink) => (
          <SinkCard key={`locked-${sink.id}`} sink={sink} progress={statusOf(sink.id)} locked />
        ))}
        {sinks?.map((sink) => (
          <SinkCard
            key={sink.id}
            sink={sink}
            overridden={sinkOverriddenReason(
              sink.id,
              locked.map((lockedSink) => lockedSink.id),
            )}
            defaultNote={defaultSinksReason({ sinks, defaulted })}
            progress={statusOf(sink.id)}
            onEdit={() => setEditing(sink)}
            onRemove={() => setRemoving(sink)}
          />
        ))}
      </ul>
      <CheckpointsSection api={api} />
      {editing && (
        <SinkForm
          api={api}
          sink={editing === 'new' ? null : editing}
          lockedIds={locked.map((lockedSink) => lockedSink.id)}
          onClose={() => setEditing(null)}
          onSaved={(next) => {
            setSinks(next.sinks);
            setDefaulted(next.defaulted === true);
          }}
        />
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.id}?`}
          confirmLabel="Remove"
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            const next = await api.audit.removeShippingSink({ id: removing.id });
            setSinks(next.sinks);
            setDefaulted(next.defaulted === true);
            setRemoving(null);
          }}
        >
          Nothing more is sent to it, and its stored headers are deleted. What it already received stays with the
          receiver; adding a sink with the same id later resumes where it stopped.
        </ConfirmDialog>
      )}
    </div>
  );
}

interface SinkCardProps {
  sink: AuditSinkView;
  progress: AuditSinkStatus | undefined;
  /** The organisation's (managed policy): shown with a lock, without Edit and Remove. */
  locked?: boolean;
  /** Why the organisation's policy overrides this sink of the person's (organisation-reasons.ts), if it does. */
  overridden?: string | null;
  /** The sink is one of the organisation's defaults in force (organisation-reasons.ts), said beside it. */
  defaultNote?: string | null;
  onEdit?: () => void;
  onRemove?: () => void;
}

function SinkCard({
  sink,
  progress: reported,
  locked = false,
  overridden = null,
  defaultNote = null,
  onEdit,
  onRemove,
}: SinkCardProps): React.JSX.Element {
  // A sink that gives way to the organisation's sends nothing: the progress of that id is the organisation's sink's.
  const progress = overridden ? undefined : reported;
  const lag = progress ? describeLag(progress) : null;
  return (
    <li className="card" aria-label={sink.id} data-testid={`sink-${sink.id}`}>
      <div className="card-main">
        <div className="card-title-row">
          <span className="card-title mono">{sink.id}</span>
          <span className="badge">
            {sink.type === 'syslog' ? (sink.tls ? 'Syslog over TLS' : 'Syslog') : 'OpenTelemetry'}
          </span>
          {!sink.enabled && <span className="badge tone-off">Off</span>}
          {lag && sink.enabled && <span className={`badge tone-${lag.tone}`}>{lag.badge}</span>}
          {locked && <LockNote id={`lock-sink-${sink.id}`} />}
        </div>
        {overridden && <LockNote id={`override-sink-${sink.id}`} detail={overridden} />}
        {defaultNote && <LockNote id={`default-sink-${sink.id}`} detail={defaultNote} />}
        <dl className="facts">
          <div>
            <dt>Sends to</dt>
            <dd className="mono">{sinkTarget(sink)}</dd>
          </div>
          {sink.type === 'otlp' && (
            <div>
              <dt>Headers</dt>
              <dd className={sink.headerNames.length > 0 ? 'mono' : 'muted'}>
                {sink.headerNames.length > 0 ? sink.headerNames.join(', ') : 'None'}
              </dd>
            </div>
          )}
          <div>
            <dt>Progress</dt>
            <dd data-testid="sink-lag">
              {progress ? lag?.text : <span className="muted">{overridden ? 'None: it sends nothing' : '…'}</span>}
            </dd>
          </div>
          {progress?.acknowledgedAt && (
            <div>
              <dt>Last delivery</dt>
              <dd>{formatTime(progress.acknowledgedAt)}</dd>
            </div>
          )}
        </dl>
        {progress?.lastError && (
          <Notice kind="error">
            <span data-testid="sink-error">{progress.lastError}</span>
            {progress.lastErrorAt && <span className="muted small"> — {formatTime(progress.lastErrorAt)}</span>}
          </Notice>
        )}
      </div>
      {!locked && (
        <div className="card-actions">
          <button type="button" className="button" onClick={onEdit} aria-label={`Edit ${sink.id}`}>
            Edit
          </button>
          <button
            type="button"
            className="button button-quiet-danger"
            onClick={onRemove}
            aria-label={`Remove ${sink.id}`}
          >
            Remove
          </button>
        </div>
      )}
    </li>
  );
}
