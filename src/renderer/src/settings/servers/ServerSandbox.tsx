import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { AuditEntry } from '../../../../shared/audit';
import type { McpServerView } from '../../../../shared/mcp';
import type { SandboxGrant, SandboxView, SandboxWidening } from '../../../../shared/sandbox';
import { SandboxBlockLine, type WidenableBlock } from '../../components/SandboxBlock';
import { WideningCard, asWidening } from '../../components/WideningCard';
import { useWideningsShownHere } from '../../components/widenings-shown';
import { Notice, errorText, formatTime } from '../common';
import { ServerUnconfined } from './ServerUnconfined';
import { LockNote } from '../approvals/organisation';
import { sandboxGrantReason, sandboxLockReason } from '../approvals/organisation-reasons';
import { sameBlocksTogether } from './sandbox-blocks';

/** Rows read for "Recent blocks", and the lines shown once the same blocks are put together. */
const RECENT_BLOCK_ROWS = 200;
const RECENT_BLOCK_LINES = 20;

type Field = 'read' | 'write' | 'hosts' | 'env';
const FIELDS: { field: Field; label: string; none: string }[] = [
  { field: 'read', label: 'May read', none: 'nothing' },
  { field: 'write', label: 'May write', none: 'nothing' },
  { field: 'hosts', label: 'May connect to', none: 'no network' },
  { field: 'env', label: 'Receives', none: 'none of the app’s environment variables' },
];

const grantOf = (field: Field, value: string): SandboxGrant =>
  field === 'hosts'
    ? { kind: 'connect', host: value }
    : field === 'env'
      ? { kind: 'env', name: value }
      : { kind: field, path: value };

const ADD_KINDS: { kind: SandboxGrant['kind']; label: string; placeholder: string }[] = [
  { kind: 'read', label: 'Read a path', placeholder: '/home/me/notes' },
  { kind: 'write', label: 'Write a folder', placeholder: '/home/me/notes' },
  { kind: 'connect', label: 'Connect to host:port', placeholder: 'api.example.com:443' },
  { kind: 'env', label: 'Receive a variable', placeholder: 'API_TOKEN' },
];

/** "Contained" or "Not contained" for a server's header and list (docs/user/sandbox.md). */
export function containmentBadge(server: McpServerView): { label: string; tone: 'good' | 'bad' | 'off' } | null {
  if (server.kind === 'http') return null;
  if (server.status.containment === 'not-contained') return { label: 'Not contained', tone: 'bad' };
  if (server.status.containment === 'contained') return { label: 'Contained', tone: 'good' };
  return null;
}

/**
 * A server's sandbox (docs/user/sandbox.md): what it may read, write, reach and receive; what was granted beyond its
 * shipped profile, each with Revoke (the same audited change as `workbench servers sandbox NAME --revoke-…`); a form
 * and the recent blocks to widen it from, each a widening request decided on its card; the organisation's limits.
 */
export function ServerSandbox({ api, server }: { api: WorkbenchApi; server: McpServerView }): React.JSX.Element {
  const [view, setView] = useState<SandboxView | null>(null);
  const [blocks, setBlocks] = useState<AuditEntry[] | null>(null);
  const [waiting, setWaiting] = useState<SandboxWidening[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [addKind, setAddKind] = useState<SandboxGrant['kind']>('read');
  const [addValue, setAddValue] = useState('');
  const [widenError, setWidenError] = useState<string | null>(null);
  const [asked, setAsked] = useState<SandboxWidening | null>(null);
  // Requests whose card is on the line they were asked from (the form, a block): not listed again under "Waiting".
  const [inline, setInline] = useState<ReadonlySet<string>>(new Set());
  const showInline = (widening: SandboxWidening): void => setInline((ids) => new Set([...ids, widening.id]));
  useWideningsShownHere(server.name);

  const load = useCallback(
    () =>
      Promise.all([
        api.mcp.sandbox({ name: server.name }),
        api.audit.query({
          serverName: server.name,
          decision: 'auto_deny',
          decidedBy: 'sandbox',
          limit: RECENT_BLOCK_ROWS,
        }),
        api.serverRequests.list({}),
      ]).then(
        ([sandbox, page, pending]) => {
          setView(sandbox);
          setBlocks(page.entries.filter((entry) => entry.toolName.startsWith('sandbox/')));
          setWaiting(
            pending.requests.flatMap((request) =>
              request.kind === 'sandbox-widening' && request.serverName === server.name ? [asWidening(request)] : [],
            ),
          );
          setError(null);
        },
        (failure: unknown) => setError(errorText(failure)),
      ),
    [api, server.name],
  );

  useEffect(() => {
    void load();
  }, [load, server.status.state, server.status.since]);

  useEffect(
    () =>
      api.serverRequests.onDidChange(({ kind, request }) => {
        if (request.kind !== 'sandbox-widening' || request.serverName !== server.name) return;
        setWaiting((current) => [
          ...current.filter((item) => item.id !== request.id),
          ...(kind === 'waiting' ? [asWidening(request)] : []),
        ]);
      }),
    [api, server.name],
  );

  if (error && !view) return <Notice kind="error">{error}</Notice>;
  if (!view) return <p className="muted">Loading the sandbox…</p>;
  if (view.kind === 'remote') {
    return (
      <div className="sandbox-page" data-testid="server-sandbox">
        <Notice kind="info">
          Not contained here: {view.reason} Containment applies only to local (stdio) servers, which run on this
          computer.
        </Notice>
      </div>
    );
  }
  const locked = view.limits.lockProfiles;
  const revoke = (field: Field, value: string): void => {
    setError(null);
    api.mcp.sandboxNarrow({ name: server.name, grant: grantOf(field, value) }).then(
      (next) => setView(next),
      (failure: unknown) => setError(errorText(failure)),
    );
  };
  const granted = view.granted;
  const limits = [
    view.limits.requireContainment && 'requires every server to be contained',
    !view.limits.allowNetwork && 'allows no network',
    !view.limits.allowHomeFolder && 'allows nothing in the home folder',
    view.limits.lockProfiles && 'locks the profiles',
  ].filter(Boolean);
  return (
    <div className="sandbox-page" data-testid="server-sandbox">
      {view.kind === 'not-contained' ? (
        <Notice kind="warning">
          <strong>Not contained.</strong> {sentence(view.reason)}{' '}
          {view.limits.requireContainment
            ? 'Your organisation requires every server to be contained, so it does not start.'
            : view.unconfined?.applies || view.limits.allowUnconfined
              ? 'It runs with all of your rights: it can read and change everything you can, and reach any host.'
              : 'It starts only if you allow it to run unconfined (below), with all of your rights.'}
        </Notice>
      ) : (
        <p className="muted small">
          Runs in a sandbox: it can touch only what is listed here. A change restarts the server with its new profile.
        </p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {view.profile && (
        <dl className="sandbox-profile" aria-label="What it may touch">
          {FIELDS.map(({ field, label, none }) => {
            const entries = view.profile?.[field] ?? [];
            return (
              <div key={field}>
                <dt>{label}</dt>
                <dd>
                  {entries.length === 0 ? (
                    <span className="muted">{none}</span>
                  ) : (
                    <ProfileEntries entries={entries} granted={granted?.[field] ?? []} />
                  )}
                </dd>
              </div>
            );
          })}
        </dl>
      )}
      {granted && FIELDS.some(({ field }) => granted[field].length > 0) && (
        <section aria-label="Granted beyond its shipped profile">
          <h4 className="small-heading">Granted beyond its shipped profile</h4>
          <ul className="sandbox-granted">
            {FIELDS.flatMap(({ field, label }) =>
              granted[field].map((entry) => (
                <li key={`${field} ${entry}`}>
                  <span className="muted">{label}</span> <span className="mono">{entry}</span>
                  <button
                    type="button"
                    className="button button-small"
                    disabled={locked}
                    aria-describedby={locked ? 'lock-sandbox-profiles' : undefined}
                    aria-label={`Revoke: ${label} ${entry}`}
                    onClick={() => revoke(field, entry)}
                  >
                    Revoke
                  </button>
                </li>
              )),
            )}
          </ul>
        </section>
      )}
      {waiting.some((widening) => !inline.has(widening.id)) && (
        <section aria-label="Widening requests waiting">
          <h4 className="small-heading">Waiting for you</h4>
          {waiting
            .filter((widening) => !inline.has(widening.id))
            .map((widening) => (
              <WideningCard key={widening.id} api={api} widening={widening} onDecided={() => void load()} />
            ))}
        </section>
      )}
      {locked && (
        <p className="sandbox-lock">
          <LockNote id="lock-sandbox-profiles" detail={sandboxLockReason(view.limits)} />
        </p>
      )}
      {!locked && view.kind === 'contained' && (
        <section aria-label="Widen the sandbox">
          <h4 className="small-heading">Widen</h4>
          <form
            className="sandbox-add"
            onSubmit={(event) => {
              event.preventDefault();
              setError(null);
              const value = addValue.trim();
              const grant: SandboxGrant =
                addKind === 'connect'
                  ? { kind: 'connect', host: value }
                  : addKind === 'env'
                    ? { kind: 'env', name: value }
                    : { kind: addKind, path: value };
              setWidenError(null);
              api.serverRequests.requestWidening({ name: server.name, grant }).then(
                (request) => {
                  showInline(asWidening(request));
                  setAsked(asWidening(request));
                  setAddValue('');
                },
                // Refused (the organisation's limits, a bad value): said under the form where it was asked.
                (failure: unknown) => setWidenError(errorText(failure)),
              );
            }}
          >
            <select
              aria-label="What to allow"
              value={addKind}
              onChange={(event) => setAddKind(event.target.value as SandboxGrant['kind'])}
            >
              {ADD_KINDS.map((kind) => (
                <option key={kind.kind} value={kind.kind}>
                  {kind.label}
                </option>
              ))}
            </select>
            <input
              aria-label="Path, host:port or variable"
              className="mono"
              value={addValue}
              placeholder={ADD_KINDS.find((kind) => kind.kind === addKind)?.placeholder}
              onChange={(event) => setAddValue(event.target.value)}
            />
            <button type="submit" className="button" disabled={addValue.trim() === ''}>
              Allow…
            </button>
          </form>
          {sandboxGrantReason(view.limits, addKind) && (
            <LockNote id="lock-sandbox-grant" detail={sandboxGrantReason(view.limits, addKind)} />
          )}
          {widenError && (
            <p className="field-problem" role="alert" data-testid="setting-problem">
              Not asked: {widenError}
            </p>
          )}
          {asked && (
            <WideningCard
              api={api}
              widening={asked}
              onDecided={(decided) => {
                setAsked(decided);
                void load();
              }}
            />
          )}
        </section>
      )}
      {limits.length > 0 && <p className="muted small">Your organisation {limits.join(', ')}.</p>}
      <ServerUnconfined
        api={api}
        view={view}
        onChanged={(next) => {
          setError(null);
          setView(next);
        }}
        onError={(failure) => setError(errorText(failure))}
      />
      <section aria-label="Recent blocks">
        <h4 className="small-heading">Recent blocks</h4>
        {blocks?.length === 0 && <p className="muted small">Nothing has been blocked.</p>}
        {blocks && blocks.length > 0 && (
          <ul className="sandbox-blocks in-settings">
            {sameBlocksTogether(blocks)
              .slice(0, RECENT_BLOCK_LINES)
              .map(({ entry, count }) => (
                <SandboxBlockLine
                  key={entry.sequence}
                  api={api}
                  serverName={server.name}
                  block={blockOf(entry)}
                  onAsked={showInline}
                  suffix={`${count > 1 ? `· ${count} times ` : ''}· ${count > 1 ? 'last ' : ''}${formatTime(entry.time)}${callOf(entry) ? ` · during ${callOf(entry)}` : ''}`}
                />
              ))}
          </ul>
        )}
      </section>
    </div>
  );
}

const SHOWN_ENTRIES = 5;

/** A profile's entries, what was granted first; past a few, the rest (the system's libraries…) behind "more". */
function ProfileEntries({ entries, granted }: { entries: string[]; granted: string[] }): React.JSX.Element {
  const ordered = [
    ...entries.filter((entry) => granted.includes(entry)),
    ...entries.filter((e) => !granted.includes(e)),
  ];
  const item = (entry: string): React.JSX.Element => (
    <li key={entry} className="mono">
      {entry}
      {granted.includes(entry) && (
        <>
          {' '}
          <span className="badge tone-info">granted</span>
        </>
      )}
    </li>
  );
  const rest = ordered.slice(SHOWN_ENTRIES);
  return (
    <>
      <ul className="sandbox-entries">{ordered.slice(0, SHOWN_ENTRIES).map(item)}</ul>
      {rest.length > 0 && (
        <details className="sandbox-more">
          <summary>{rest.length} more</summary>
          <ul className="sandbox-entries">{rest.map(item)}</ul>
        </details>
      )}
    </>
  );
}

/** A reason as a sentence: it ends with a full stop. */
function sentence(text: string | undefined): string {
  const trimmed = (text ?? '').trim();
  return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** A block's audit row as a block (docs/user/sandbox.md#blocks: tool `sandbox/<kind>`, `args.target`). */
function blockOf(entry: AuditEntry): WidenableBlock | { text: string } {
  const kind = entry.toolName.slice('sandbox/'.length);
  const target = (entry.args as { target?: unknown } | null)?.target;
  const text = entry.reason?.replace(/: not in its sandbox profile( \([^)]*\))?$/, ' — blocked') ?? entry.toolName;
  if ((kind === 'read' || kind === 'write' || kind === 'connect' || kind === 'env') && typeof target === 'string')
    return { kind, target, text: text.replace(/ during [^ ]+ — blocked$/, ' — blocked') };
  return { text };
}

function callOf(entry: AuditEntry): string | undefined {
  const call = (entry.args as { call?: unknown } | null)?.call;
  return typeof call === 'string' ? call : undefined;
}
