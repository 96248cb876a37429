import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { McpServerView } from '../../../../shared/mcp';
import { Notice, PageHeader, Switch, errorText, formatTime } from '../common';
import { RefreshIcon } from '../../components/icons';
import { ImportDialog } from './ImportDialog';
import { ServerForm } from './ServerForm';
import { ServerLogs } from './ServerLogs';
import { containmentBadge, ServerSandbox } from './ServerSandbox';
import { ServerTools } from './ServerTools';
import { SignInPanel } from './SignInPanel';
import { statusOf, summaryOf } from './server-text';
import { TRUST_ANNOTATIONS } from '../../../../shared/trust-words';
import { LockNote } from '../approvals/organisation';
import { useContainmentReason, useTrustReason } from './use-trust-reason';

/** MCP servers: the list with live status on the left, the chosen server's controls, tools and log on the right. */
export function ServersPage({ api }: { api: WorkbenchApi }): React.JSX.Element {
  const [servers, setServers] = useState<McpServerView[] | null>(null);
  const [selectedName, setSelectedName] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState<McpServerView | 'new' | null>(null);
  const [importing, setImporting] = useState(false);
  const [removing, setRemoving] = useState<McpServerView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = useCallback(
    () =>
      api.mcp.list().then(
        (result) => setServers(result.servers),
        (failure: unknown) => setError(errorText(failure)),
      ),
    [api],
  );

  useEffect(() => {
    void load();
    return api.mcp.onDidChangeServer((change) => {
      if (change.kind === 'notice') {
        setNotice(change.message);
        return;
      }
      setServers((current) => {
        if (!current) return current;
        if (change.kind === 'removed') return current.filter((server) => server.name !== change.name);
        const index = current.findIndex((server) => server.name === change.server.name);
        if (index < 0) return [...current, change.server];
        return current.map((server, at) => (at === index ? change.server : server));
      });
    });
  }, [api, load]);

  const selected = servers?.find((server) => server.name === selectedName) ?? servers?.[0] ?? null;

  const act = async (action: () => Promise<unknown>): Promise<void> => {
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <div className="settings-page" data-testid="servers-page">
      <PageHeader
        title="MCP servers"
        description="Programs and services that give models tools. Every call still goes through your approval settings."
        actions={
          <>
            <button type="button" className="button" onClick={() => setImporting(true)}>
              Import…
            </button>
            <button type="button" className="button button-primary" onClick={() => setForm('new')}>
              Add server
            </button>
          </>
        }
      />
      {error && <Notice kind="error">{error}</Notice>}
      {notice && <Notice kind="warning">{notice}</Notice>}
      {servers === null && !error && <p className="muted">Loading…</p>}
      {servers?.length === 0 && (
        <div className="settings-empty">
          No MCP server is configured. Add one, or import them from Claude Desktop, Cursor or VS Code.
        </div>
      )}
      {servers && servers.length > 0 && selected && (
        <div className="master-detail">
          <ul className="server-list" aria-label="Servers">
            {servers.map((server) => {
              const status = statusOf(server);
              const isSelected = server.name === selected.name;
              return (
                <li key={server.name}>
                  <button
                    type="button"
                    className={`server-item${isSelected ? ' is-selected' : ''}`}
                    aria-current={isSelected ? 'true' : undefined}
                    onClick={() => setSelectedName(server.name)}
                  >
                    <span className={`dot tone-${status.tone}`} aria-hidden="true" />
                    <span className="server-item-text">
                      <span className="server-item-name">{server.displayName || server.name}</span>
                      <span className="server-item-status muted">
                        {status.label}
                        {server.enabled && server.status.state === 'ready' && ` · ${server.status.toolCount} tools`}
                        {server.enabled && server.status.containment === 'not-contained' && ' · Not contained'}
                      </span>
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
          <ServerDetail
            key={selected.name}
            api={api}
            server={selected}
            onEdit={() => setForm(selected)}
            onRemove={() => setRemoving(selected)}
            act={act}
          />
        </div>
      )}
      {form && (
        <ServerForm
          api={api}
          server={form === 'new' ? null : form}
          onClose={() => setForm(null)}
          onSaved={(name) => {
            setSelectedName(name);
            void load();
          }}
        />
      )}
      {importing && <ImportDialog api={api} onClose={() => setImporting(false)} onImported={() => void load()} />}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.displayName || removing.name}?`}
          confirmLabel="Remove"
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            const name = removing.name;
            setRemoving(null);
            setSelectedName(null);
            await act(() => api.mcp.remove({ name }));
          }}
        >
          The server is stopped and its settings and stored secrets are deleted, with its approval settings, the rules
          that name it alone and its chat grants. Its tools disappear from every chat.
        </ConfirmDialog>
      )}
    </div>
  );
}

interface ServerDetailProps {
  api: WorkbenchApi;
  server: McpServerView;
  onEdit(): void;
  onRemove(): void;
  act(action: () => Promise<unknown>): Promise<void>;
}

function ServerDetail({ api, server, onEdit, onRemove, act }: ServerDetailProps): React.JSX.Element {
  const status = statusOf(server);
  const [tab, setTab] = useState<'tools' | 'sandbox' | 'logs'>('tools');
  // What the organisation's policy does to the trust switch (docs/user/organisation-policy.md).
  const trustOverride = useTrustReason(api);
  // And to a local server's Enabled switch, where it requires containment.
  const containmentOverride = useContainmentReason(api, server.name, server.kind !== 'http');
  const containment = containmentBadge(server);
  return (
    <section className="server-detail" aria-label={`Server ${server.name}`}>
      <header className="server-detail-header">
        <div className="server-detail-title">
          <h3>{server.displayName || server.name}</h3>
          <span className={`status-pill tone-${status.tone}`} data-testid="server-status">
            {status.label}
          </span>
          {server.enabled && containment && (
            <span className={`status-pill tone-${containment.tone}`} data-testid="server-containment">
              {containment.label}
            </span>
          )}
        </div>
        <div className="card-actions">
          <button
            type="button"
            className="button"
            disabled={!server.enabled}
            onClick={() => void act(() => api.mcp.restart({ name: server.name }))}
          >
            <RefreshIcon size={14} /> Restart
          </button>
          <button type="button" className="button" onClick={onEdit}>
            Edit
          </button>
          <button type="button" className="button button-quiet-danger" onClick={onRemove}>
            Remove
          </button>
        </div>
      </header>
      <p className="mono server-summary" title={summaryOf(server)}>
        {summaryOf(server)}
      </p>
      {server.identityChanged && (
        <Notice kind="warning">
          {server.identityChanged.unrecorded ? (
            <p>
              This server was added to settings.json outside AI Workbench. It does not start until you accept what it
              runs: <code>{server.identityChanged.current}</code>. Until then nothing given to it (its approval
              settings, rules, chat grants or trust) allows its calls.
            </p>
          ) : (
            <p>
              This server runs something else than when its approval settings, rules and chat grants were made, so it
              does not start until you accept what it runs now. It ran <code>{server.identityChanged.previous}</code>;
              it runs <code>{server.identityChanged.current}</code>.
            </p>
          )}
          <div className="card-actions">
            <button
              type="button"
              className="button"
              onClick={() => void act(() => api.mcp.edit({ name: server.name, acceptIdentity: true }))}
            >
              Use my settings for what it runs now
            </button>
            {server.enabled && (
              <button
                type="button"
                className="button"
                onClick={() => void act(() => api.mcp.setEnabled({ name: server.name, enabled: false }))}
              >
                Keep it off
              </button>
            )}
          </div>
        </Notice>
      )}
      {server.enabled && server.status.state === 'needs-sign-in' && <SignInPanel api={api} server={server} />}
      {server.enabled &&
        server.status.message &&
        server.status.state !== 'needs-sign-in' &&
        // The identity notice above says it, with its buttons.
        server.status.state !== 'needs-acceptance' && (
          <Notice kind={server.status.state === 'error' ? 'error' : 'info'}>{server.status.message}</Notice>
        )}
      <dl className="facts">
        {server.name !== server.displayName && server.displayName && (
          <div>
            <dt>Key</dt>
            <dd className="mono">{server.name}</dd>
          </div>
        )}
        {server.identity && (
          <div>
            <dt>Runs</dt>
            <dd className="mono" data-testid="server-identity">
              {server.identity.description}
            </dd>
          </div>
        )}
        <div>
          <dt>Since</dt>
          <dd>{formatTime(server.status.since)}</dd>
        </div>
        {server.status.serverInfo && (
          <div>
            <dt>Reports as</dt>
            <dd>
              {server.status.serverInfo.name} {server.status.serverInfo.version}
            </dd>
          </div>
        )}
        {server.status.protocolVersion && (
          <div>
            <dt>Protocol</dt>
            <dd data-testid="server-protocol">
              MCP <span className="mono">{server.status.protocolVersion}</span>
            </dd>
          </div>
        )}
        {server.status.pid !== undefined && (
          <div>
            <dt>Process</dt>
            <dd className="mono">{server.status.pid}</dd>
          </div>
        )}
        {server.signedIn && (
          <div>
            <dt>Sign-in</dt>
            <dd>
              Signed in with OAuth{' '}
              <button
                type="button"
                className="link-button"
                onClick={() => void act(() => api.mcp.signOut({ name: server.name }))}
              >
                Sign out
              </button>
            </dd>
          </div>
        )}
        <div>
          <dt>Roots</dt>
          <dd className="mono" data-testid="server-roots">
            {server.roots.length > 0 ? server.roots.join('  ') : <span className="muted">none</span>}
          </dd>
        </div>
        {(server.envKeys.length > 0 || server.headerKeys.length > 0) && (
          <div>
            <dt>{server.kind === 'http' ? 'Headers' : 'Environment'}</dt>
            <dd className="mono">{[...server.envKeys, ...server.headerKeys].map((key) => `${key}=••••`).join('  ')}</dd>
          </div>
        )}
      </dl>
      <div className="switch-group">
        <Switch
          label="Enabled"
          description={
            <>
              A disabled server is stopped and offers no tools.
              {containmentOverride && <LockNote id="lock-containment-server" detail={containmentOverride} />}
            </>
          }
          checked={server.enabled}
          onChange={(enabled) => void act(() => api.mcp.setEnabled({ name: server.name, enabled }))}
        />
        <Switch
          label={TRUST_ANNOTATIONS}
          description={
            <>
              Its read-only hints may then auto-approve tools when the global mode allows it. Only trust servers you
              know.
              {trustOverride && <LockNote id="lock-trust-server" detail={trustOverride} />}
            </>
          }
          checked={server.trusted}
          onChange={(trusted) => void act(() => api.mcp.edit({ name: server.name, trusted }))}
        />
      </div>
      <div className="subtabs" role="tablist" aria-label="Server details">
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'tools'}
          className={`subtab${tab === 'tools' ? ' is-selected' : ''}`}
          onClick={() => setTab('tools')}
        >
          Tools
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'sandbox'}
          className={`subtab${tab === 'sandbox' ? ' is-selected' : ''}`}
          onClick={() => setTab('sandbox')}
        >
          Sandbox
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={tab === 'logs'}
          className={`subtab${tab === 'logs' ? ' is-selected' : ''}`}
          onClick={() => setTab('logs')}
        >
          Logs
        </button>
      </div>
      <div role="tabpanel">
        {tab === 'tools' ? (
          <ServerTools api={api} server={server} />
        ) : tab === 'sandbox' ? (
          <ServerSandbox api={api} server={server} />
        ) : (
          <ServerLogs api={api} server={server} />
        )}
      </div>
    </section>
  );
}
