import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { rememberedStore } from '../../state/remembered';
import type { WorkbenchApi } from '../../../../shared/api';
import type { PolicyUpdate, PolicyView, ToolApprovalSetting } from '../../../../shared/approval';
import type { McpServerView, McpTool } from '../../../../shared/mcp';
import { Notice, Switch, errorText } from '../common';
import { annotationBadges } from '../servers/server-text';
import {
  DefaultNote,
  LockNote,
  defaultedServer,
  defaultedTool,
  lockId,
  lockedServer,
  lockedTool,
  withoutLocked,
} from './organisation';
import { ServerSamplingSettings } from './ServerSamplingSettings';
import { ToolSettingSelect } from './ToolSettingSelect';
import { filterServerTools, inheritedWords, resetToDefaults, type ServerToolsRow } from './tool-settings';
import { autoApproveServerLabel } from '../../../../shared/trust-words';

interface Props {
  api: WorkbenchApi;
  view: PolicyView;
  update(change: PolicyUpdate): Promise<PolicyView>;
}

/** Per-server and per-tool settings (tool > server > global), searchable, with "reset to defaults". */
export function ServerToolSettings({ api, view, update }: Props): React.JSX.Element {
  const remembered = useSyncExternalStore(rememberedStore.subscribe, rememberedStore.getSnapshot);
  const [servers, setServers] = useState<McpServerView[]>([]);
  const [tools, setTools] = useState<McpTool[]>([]);
  const [query, setQuery] = useState('');
  const [onlyChanged, setOnlyChanged] = useState(false);
  // A tool just remembered from a card (docs/user/approvals.md "Remember from the card") shows open, highlighted.
  const [expanded, setExpanded] = useState<string[]>(() =>
    remembered?.action.kind === 'tool' ? [remembered.serverName] : [],
  );
  const [confirmReset, setConfirmReset] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The servers that asked the model to write for them (sampling rows in the audit log): only they, a server with a
  // sampling setting, or one the person asked to see, show the sampling settings (docs/user/server-requests.md).
  const [sampled, setSampled] = useState<ReadonlySet<string>>(new Set());
  const [samplingShown, setSamplingShown] = useState<readonly string[]>([]);
  const serverNames = servers.map((server) => server.name).join('\n');
  useEffect(() => {
    let current = true;
    const names = serverNames === '' ? [] : serverNames.split('\n');
    void Promise.all(
      names.map((name) =>
        api.audit.query({ kind: 'sampling', serverName: name, limit: 1 }).then(
          (page) => (page.entries.some((entry) => entry.serverName === name) ? name : null),
          () => null,
        ),
      ),
    ).then((found) => {
      if (current) setSampled(new Set(found.filter((name): name is string => name !== null)));
    });
    return () => {
      current = false;
    };
  }, [api, serverNames]);

  useEffect(() => {
    const load = (): void => {
      Promise.all([api.mcp.list(), api.mcp.tools()]).then(
        ([list, all]) => {
          setServers(list.servers);
          setTools(all.tools);
        },
        (failure: unknown) => setError(errorText(failure)),
      );
    };
    load();
    const stopTools = api.mcp.onDidChangeTools(load);
    const stopServers = api.mcp.onDidChangeServer(load);
    return () => {
      stopTools();
      stopServers();
    };
  }, [api]);

  const rows: ServerToolsRow[] = useMemo(
    () =>
      filterServerTools({
        servers: servers.map((server) => server.name),
        tools,
        policy: view.policy,
        query,
        onlyChanged,
      }),
    [servers, tools, view.policy, query, onlyChanged],
  );
  const searching = query.trim().length > 0 || onlyChanged;
  const hasCustom = Object.keys(view.policy.servers).length > 0 || Object.keys(view.policy.tools).length > 0;

  // A refused or failed change says why where it was made (docs/user/approvals.md, "Settings"): keyed by the place.
  const [problems, setProblems] = useState<ReadonlyMap<string, string>>(new Map());
  const applyAt = async (place: string | null, change: PolicyUpdate): Promise<string | null> => {
    setError(null);
    const without = new Map(problems);
    if (place) without.delete(place);
    setProblems(without);
    try {
      await update(change);
      return null;
    } catch (failure) {
      const text = `Not changed: ${errorText(failure)}`;
      if (place) setProblems(new Map(without).set(place, text));
      else setError(text);
      return text;
    }
  };
  const apply = async (change: PolicyUpdate): Promise<void> => {
    await applyAt(null, change);
  };
  const problemAt = (place: string): React.JSX.Element | null => {
    const text = problems.get(place);
    return text ? (
      <p className="field-problem setting-problem" role="alert" data-testid="setting-problem">
        {text}
      </p>
    ) : null;
  };

  return (
    <section className="settings-section" aria-labelledby="tool-settings-title">
      <div className="section-title-row">
        <h3 id="tool-settings-title">Servers and tools</h3>
        <button
          type="button"
          className="button button-small"
          disabled={!hasCustom}
          onClick={() => setConfirmReset(true)}
        >
          Reset to defaults
        </button>
      </div>
      {/* The decision order of docs/dev/architecture.md, in the words of this page; the pipeline's property tests hold it. */}
      <p className="muted small">
        A tool’s own setting beats its server’s, which beats the global mode; only deny rules and turning approvals off
        stand above them. “Always ask” is never silenced by “Allow for this chat”, a chat set to “Never ask” or an allow
        rule. “Run without asking” still yields to deny rules, ask rules and a chat set to “Always ask”.
      </p>
      <div className="filter-bar">
        <input
          type="search"
          aria-label="Filter servers and tools"
          placeholder="Filter by server or tool"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <label className="inline-check">
          <input type="checkbox" checked={onlyChanged} onChange={(event) => setOnlyChanged(event.target.checked)} />{' '}
          Only changed settings
        </label>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
      {rows.length === 0 && (
        <p className="muted">{searching ? 'Nothing matches the filter.' : 'No MCP server is configured.'}</p>
      )}
      <ul className="server-settings" aria-label="Server and tool settings">
        {rows.map((row) => {
          const open = searching || expanded.includes(row.server);
          return (
            <li
              key={row.server}
              className={`server-settings-item${remembered?.action.kind === 'server' && remembered.serverName === row.server ? ' is-remembered' : ''}`}
              aria-label={row.server}
            >
              <div className="server-settings-head">
                <button
                  type="button"
                  className="disclosure"
                  aria-expanded={open}
                  title={`${open ? 'Hide' : 'Show'} the tools of ${row.server}`}
                  onClick={() =>
                    setExpanded((current) =>
                      current.includes(row.server)
                        ? current.filter((name) => name !== row.server)
                        : [...current, row.server],
                    )
                  }
                >
                  <span className="disclosure-arrow" aria-hidden="true">
                    ▸
                  </span>
                  <span className="server-settings-name">{row.server}</span>
                  <span className="muted small">
                    {row.totalTools} tool{row.totalTools === 1 ? '' : 's'}
                    {row.customTools > 0 && ` · ${row.customTools} set`}
                  </span>
                </button>
                <Switch
                  label={autoApproveServerLabel(row.server)}
                  checked={row.autoApprove}
                  disabled={lockedServer(view, row.server)}
                  description={
                    lockedServer(view, row.server) ? (
                      <LockNote id={lockId(row.server)} />
                    ) : defaultedServer(view, row.server) ? (
                      <DefaultNote />
                    ) : undefined
                  }
                  onChange={(autoApprove) =>
                    void applyAt(`server:${row.server}`, { servers: { [row.server]: { autoApprove } } })
                  }
                />
              </div>
              {problemAt(`server:${row.server}`)}
              {open &&
                (sampled.has(row.server) ||
                samplingShown.includes(row.server) ||
                view.policy.servers[row.server]?.sampling !== undefined ||
                view.policy.servers[row.server]?.samplingTokenBudget !== undefined ||
                lockedServer(view, row.server, 'sampling') ? (
                  <ServerSamplingSettings
                    server={row.server}
                    sampling={view.policy.servers[row.server]?.sampling}
                    budget={view.policy.servers[row.server]?.samplingTokenBudget}
                    locked={lockedServer(view, row.server, 'sampling')}
                    describedBy={lockedServer(view, row.server, 'sampling') ? lockId(row.server) : undefined}
                    apply={(change) => applyAt(null, change)}
                  />
                ) : (
                  <p className="muted small sampling-unused" data-testid="sampling-unused">
                    {row.server} has not asked the chat’s model to write for it; its sampling settings show here once it
                    does.{' '}
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => setSamplingShown((shown) => [...shown, row.server])}
                    >
                      Set them now
                    </button>
                  </p>
                ))}
              {open && (
                <table className="table compact">
                  <tbody>
                    {row.tools.length === 0 && (
                      <tr>
                        <td className="muted small">
                          {searching ? 'No tool of this server matches.' : 'No tools known (is the server running?).'}
                        </td>
                      </tr>
                    )}
                    {row.tools.map((tool) => (
                      <tr
                        key={tool.name}
                        className={
                          remembered?.action.kind === 'tool' &&
                          remembered.serverName === row.server &&
                          remembered.toolName === tool.name
                            ? 'is-remembered'
                            : undefined
                        }
                      >
                        <td className="mono">{tool.name}</td>
                        <td>
                          <div className="badges">
                            {annotationBadges(tool.annotations).map((badge) => (
                              <span key={badge.label} className={`badge tone-${badge.tone}`} title={badge.title}>
                                {badge.label}
                              </span>
                            ))}
                          </div>
                        </td>
                        <td className="align-end">
                          {lockedTool(view, row.server, tool.name) ? (
                            <LockNote id={lockId(row.server, tool.name)} />
                          ) : (
                            defaultedTool(view, row.server, tool.name) !== undefined && <DefaultNote />
                          )}
                        </td>
                        <td className="align-end">
                          <ToolSettingSelect
                            label={`Approval for ${row.server} ${tool.name}`}
                            value={tool.setting}
                            inherited={inheritedWords(view.policy, row.server, tool.annotations)}
                            disabled={lockedTool(view, row.server, tool.name)}
                            describedBy={
                              lockedTool(view, row.server, tool.name) ? lockId(row.server, tool.name) : undefined
                            }
                            onChange={(setting: ToolApprovalSetting) =>
                              void applyAt(`tool:${row.server}\u0000${tool.name}`, {
                                tools: { [row.server]: { [tool.name]: setting } },
                              })
                            }
                          />
                          {problemAt(`tool:${row.server}\u0000${tool.name}`)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </li>
          );
        })}
      </ul>
      {confirmReset && (
        <ConfirmDialog
          title="Reset server and tool settings?"
          confirmLabel="Reset"
          onCancel={() => setConfirmReset(false)}
          onConfirm={async () => {
            setConfirmReset(false);
            await apply(withoutLocked(resetToDefaults(view.policy), view));
          }}
        >
          Every server goes back to asking and every tool to “Use server setting”. Rules, grants, the global mode and
          the timeout stay.
        </ConfirmDialog>
      )}
    </section>
  );
}
