import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { AuditShippingSinks, AuditSinkSaveInput, AuditSinkView } from '../../../../shared/audit-shipping';
import { Field, Modal, Notice, Switch } from '../common';
import { fieldProblems } from '../field-problems';
import { LockNote } from '../approvals/organisation';
import { sinkIdReason } from '../approvals/organisation-reasons';

export interface SinkFormProps {
  api: WorkbenchApi;
  /** Null adds a new sink. */
  sink: AuditSinkView | null;
  /** The ids of the organisation's locked sinks: none of the person's may have one. */
  lockedIds: readonly string[];
  onClose(): void;
  onSaved(sinks: AuditShippingSinks): void;
}

/** A header row of the form: a stored header (value never shown) or a new one. */
interface HeaderDraft {
  key: number;
  name: string;
  value: string;
  stored: boolean;
}

/** Add or edit an audit sink. OTLP header values are write-only: a stored one shows as set, typing replaces it. */
export function SinkForm({ api, sink, lockedIds, onClose, onSaved }: SinkFormProps): React.JSX.Element {
  const [type, setType] = useState<'syslog' | 'otlp'>(sink?.type ?? 'syslog');
  const [id, setId] = useState(sink?.id ?? '');
  const [enabled, setEnabled] = useState(sink?.enabled ?? true);
  const [host, setHost] = useState(sink?.type === 'syslog' ? sink.host : '');
  const [port, setPort] = useState(sink?.type === 'syslog' ? String(sink.port) : '6514');
  const [tls, setTls] = useState(sink?.type === 'syslog' ? sink.tls !== undefined : true);
  const [caFile, setCaFile] = useState(sink?.type === 'syslog' ? (sink.tls?.caFile ?? '') : '');
  const [serverName, setServerName] = useState(sink?.type === 'syslog' ? (sink.tls?.serverName ?? '') : '');
  const [endpoint, setEndpoint] = useState(sink?.type === 'otlp' ? (sink.endpoint ?? '') : '');
  const [headers, setHeaders] = useState<HeaderDraft[]>(
    sink?.type === 'otlp' ? sink.headerNames.map((name, index) => ({ key: index, name, value: '', stored: true })) : [],
  );
  const [removedHeaders, setRemovedHeaders] = useState<string[]>([]);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const input = (): AuditSinkSaveInput => {
    const common = { id: id.trim(), enabled, ...(sink?.batchSize === undefined ? {} : { batchSize: sink.batchSize }) };
    if (type === 'syslog') {
      const tlsSettings = tls
        ? {
            ...(caFile.trim() ? { caFile: caFile.trim() } : {}),
            ...(serverName.trim() ? { serverName: serverName.trim() } : {}),
          }
        : undefined;
      const previousTls = sink?.type === 'syslog' ? sink.tls : undefined;
      return {
        previousId: sink?.id,
        sink: {
          type: 'syslog',
          ...common,
          host: host.trim(),
          port: Number(port),
          ...(tlsSettings ? { tls: { ...previousTls, ...tlsSettings } } : {}),
          ...(sink?.type === 'syslog' ? { facility: sink.facility } : {}),
        },
      };
    }
    const changes: Record<string, string | null> = Object.fromEntries(removedHeaders.map((name) => [name, null]));
    for (const header of headers)
      if (header.name.trim() && (!header.stored || header.value)) changes[header.name.trim()] = header.value;
    return {
      previousId: sink?.id,
      sink: { type: 'otlp', ...common, ...(endpoint.trim() ? { endpoint: endpoint.trim() } : {}) },
      headers: changes,
    };
  };

  const save = async (): Promise<void> => {
    setBusy(true);
    setProblems({});
    try {
      onSaved(await api.audit.saveShippingSink(input()));
      onClose();
    } catch (failure) {
      setProblems(fieldProblems(failure, 'sink.'));
      setBusy(false);
    }
  };

  const otherProblems = Object.entries(problems).filter(
    ([field]) => !['id', 'host', 'port', 'endpoint', 'tls.caFile', 'tls.serverName'].includes(field),
  );

  return (
    <Modal
      title={sink ? `Edit ${sink.id}` : 'Add an audit sink'}
      onClose={onClose}
      testId="sink-form"
      wide
      actions={
        <>
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form="sink-form" className="button button-primary" disabled={busy}>
            {sink ? 'Save' : 'Add sink'}
          </button>
        </>
      }
    >
      <form
        noValidate
        id="sink-form"
        className="form"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Field label="Kind" hint={sink ? 'The kind cannot change; add another sink instead.' : undefined}>
          {(props) => (
            <select
              {...props}
              value={type}
              disabled={Boolean(sink)}
              onChange={(event) => setType(event.target.value === 'otlp' ? 'otlp' : 'syslog')}
            >
              <option value="syslog">Syslog (RFC 5424 over TCP or TLS)</option>
              <option value="otlp">OpenTelemetry logs (OTLP/HTTP)</option>
            </select>
          )}
        </Field>
        <Field
          label="Id"
          hint={
            sinkIdReason(id, lockedIds) ? (
              <LockNote id="lock-sink-id" detail={sinkIdReason(id, lockedIds)} />
            ) : (
              'Names the sink in the status and the cursor table. A new id ships the whole log to it again.'
            )
          }
          problem={problems.id}
        >
          {(props) => (
            <input
              {...props}
              className="mono"
              value={id}
              placeholder="siem"
              onChange={(event) => setId(event.target.value)}
              autoFocus
            />
          )}
        </Field>
        {type === 'syslog' ? (
          <>
            <div className="form-grid">
              <Field label="Host" problem={problems.host}>
                {(props) => (
                  <input
                    {...props}
                    className="mono"
                    value={host}
                    placeholder="logs.example.org"
                    onChange={(event) => setHost(event.target.value)}
                  />
                )}
              </Field>
              <Field label="Port" problem={problems.port}>
                {(props) => (
                  <input
                    {...props}
                    className="mono"
                    inputMode="numeric"
                    value={port}
                    onChange={(event) => setPort(event.target.value)}
                  />
                )}
              </Field>
            </div>
            <Switch
              checked={tls}
              label="TLS (RFC 5425)"
              description="Encrypts the connection and checks the receiver's certificate."
              onChange={setTls}
            />
            {tls && (
              <div className="form-grid">
                <Field
                  label="CA file (optional)"
                  hint="PEM file of the CA that signed the receiver's certificate; the system's CAs when empty."
                  problem={problems['tls.caFile']}
                >
                  {(props) => (
                    <input
                      {...props}
                      className="mono"
                      value={caFile}
                      placeholder="/etc/ssl/org-ca.pem"
                      onChange={(event) => setCaFile(event.target.value)}
                    />
                  )}
                </Field>
                <Field
                  label="Server name (optional)"
                  hint="The name on the receiver's certificate; the host when empty."
                  problem={problems['tls.serverName']}
                >
                  {(props) => (
                    <input
                      {...props}
                      className="mono"
                      value={serverName}
                      onChange={(event) => setServerName(event.target.value)}
                    />
                  )}
                </Field>
              </div>
            )}
          </>
        ) : (
          <>
            <Field
              label="Endpoint (optional)"
              hint="The full logs URL (…/v1/logs). Empty: the OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT variable."
              problem={problems.endpoint}
            >
              {(props) => (
                <input
                  {...props}
                  type="url"
                  className="mono"
                  value={endpoint}
                  placeholder="https://otel.example.org:4318/v1/logs"
                  onChange={(event) => setEndpoint(event.target.value)}
                />
              )}
            </Field>
            <fieldset className="field header-list">
              <legend>Headers</legend>
              <p className="muted small">
                Sent with every export, with those of OTEL_EXPORTER_OTLP_HEADERS. Values are stored with your secrets
                and never shown again.
              </p>
              {headers.map((header) => (
                <div key={header.key} className="header-row">
                  <input
                    aria-label="Header name"
                    className="mono"
                    value={header.name}
                    disabled={header.stored}
                    placeholder="authorization"
                    onChange={(event) =>
                      setHeaders((current) =>
                        current.map((entry) =>
                          entry.key === header.key ? { ...entry, name: event.target.value } : entry,
                        ),
                      )
                    }
                  />
                  <input
                    aria-label={`Value of ${header.name || 'the header'}`}
                    type="password"
                    className="mono"
                    value={header.value}
                    placeholder={header.stored ? '•••••••• set — type to replace' : 'value'}
                    onChange={(event) =>
                      setHeaders((current) =>
                        current.map((entry) =>
                          entry.key === header.key ? { ...entry, value: event.target.value } : entry,
                        ),
                      )
                    }
                  />
                  <button
                    type="button"
                    className="button button-quiet-danger"
                    aria-label={`Remove header ${header.name}`}
                    onClick={() => {
                      if (header.stored) setRemovedHeaders((current) => [...current, header.name]);
                      setHeaders((current) => current.filter((entry) => entry.key !== header.key));
                    }}
                  >
                    Remove
                  </button>
                </div>
              ))}
              <button
                type="button"
                className="button"
                onClick={() =>
                  setHeaders((current) => [
                    ...current,
                    { key: Math.max(0, ...current.map((entry) => entry.key)) + 1, name: '', value: '', stored: false },
                  ])
                }
              >
                Add header
              </button>
            </fieldset>
          </>
        )}
        <Switch
          checked={enabled}
          label="Ship to this sink"
          description="Off keeps its settings and its place in the log."
          onChange={setEnabled}
        />
        {otherProblems.map(([field, message]) => (
          <Notice key={field} kind="error">
            {field ? `${field}: ${message}` : message}
          </Notice>
        ))}
      </form>
    </Modal>
  );
}
