import { useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import {
  BundledServerPackageSchema,
  MCP_DEFAULT_CALL_TIMEOUT_MS,
  McpHttpTransportSchema,
  type BundledServerPackage,
  type McpEditInput,
  type McpHttpTransport,
  type McpServerInput,
  type McpServerView,
} from '../../../../shared/mcp';
import { Field, Modal, Notice, Switch } from '../common';
import { fieldProblems } from '../field-problems';
import { parseArgumentLines, parseKeyValueLines } from './server-text';
import { TRUST_ANNOTATIONS } from '../../../../shared/trust-words';
import { LockNote } from '../approvals/organisation';
import { useContainmentReason, useOrganisationIdp, useTrustReason } from './use-trust-reason';
import { useCrossAppAccess } from './CrossAppAccessFields';

type Launch = 'command' | 'package' | 'url';

export interface ServerFormProps {
  api: WorkbenchApi;
  /** Null adds a new server. */
  server: McpServerView | null;
  onClose(): void;
  onSaved(name: string): void;
}

/** Add or edit a server. Secret values (environment, headers) are write-only: existing ones show as set, by name. */
export function ServerForm({ api, server, onClose, onSaved }: ServerFormProps): React.JSX.Element {
  const initialLaunch: Launch = server
    ? server.kind === 'http'
      ? 'url'
      : server.package
        ? 'package'
        : 'command'
    : 'command';
  const [launch, setLaunch] = useState<Launch>(initialLaunch);
  const [name, setName] = useState(server?.name ?? '');
  const [displayName, setDisplayName] = useState(
    server && server.displayName !== server.name ? server.displayName : '',
  );
  const [command, setCommand] = useState(server?.command ?? '');
  const [bundled, setBundled] = useState<BundledServerPackage>(
    server?.package ?? '@modelcontextprotocol/server-filesystem',
  );
  const [args, setArgs] = useState((server?.args ?? []).join('\n'));
  const [cwd, setCwd] = useState(server?.cwd ?? '');
  const [url, setUrl] = useState(server?.url ?? '');
  const [transport, setTransport] = useState<McpHttpTransport>(server?.type ?? 'auto');
  const [oauthClientId, setOauthClientId] = useState(server?.oauthClientId ?? '');
  const [secrets, setSecrets] = useState('');
  const [removedKeys, setRemovedKeys] = useState<string[]>([]);
  const [enabled, setEnabled] = useState(server?.enabled ?? true);
  const [trusted, setTrusted] = useState(server?.trusted ?? false);
  const [timeoutSeconds, setTimeoutSeconds] = useState(
    String((server?.callTimeoutMs ?? MCP_DEFAULT_CALL_TIMEOUT_MS) / 1000),
  );
  const [roots, setRoots] = useState((server?.roots ?? []).join('\n'));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  // What the organisation's policy does to the trust switch (docs/user/organisation-policy.md).
  const trustOverride = useTrustReason(api);
  const organisationIdp = useOrganisationIdp(api, name, url, server === null && launch === 'url');
  const crossApp = useCrossAppAccess(server, organisationIdp);
  const containmentOverride = useContainmentReason(api, server?.name ?? null, launch !== 'url');

  const secretField = launch === 'url' ? 'headers' : 'env';
  const existingKeys = server ? (server.kind === 'http' ? server.headerKeys : server.envKeys) : [];

  const save = async (): Promise<void> => {
    const parsedSecrets = parseKeyValueLines(secrets);
    const seconds = Number(timeoutSeconds);
    const local: Record<string, string> = {};
    if (parsedSecrets.problem) local[secretField] = parsedSecrets.problem;
    if (!Number.isFinite(seconds) || seconds < 0.1) local.callTimeoutMs = 'Enter a number of seconds (at least 0.1).';
    if (Object.keys(local).length > 0) {
      setProblems(local);
      return;
    }
    setBusy(true);
    setProblems({});
    const callTimeoutMs = Math.round(seconds * 1000);
    // Roots are sent only when they differ from what the server is told now, so a default stays a default.
    const rootList = parseArgumentLines(roots);
    const rootsChanged = JSON.stringify(rootList) !== JSON.stringify(server?.roots ?? []);
    try {
      if (server) {
        const changes: Record<string, string | null> = { ...parsedSecrets.values };
        for (const key of removedKeys) if (!(key in changes)) changes[key] = null;
        const edit: McpEditInput = {
          name: server.name,
          rename: name.trim() && name.trim() !== server.name ? name.trim() : undefined,
          displayName: displayName.trim() ? displayName.trim() : null,
          enabled,
          trusted,
          callTimeoutMs,
          ...(rootsChanged ? { roots: rootList } : {}),
          ...(launch === 'url'
            ? {
                url: url.trim(),
                type: transport,
                headers: changes,
                oauthClientId: oauthClientId.trim() || null,
                ...crossApp.edited(),
              }
            : {
                args: parseArgumentLines(args),
                cwd: cwd.trim() ? cwd.trim() : null,
                env: changes,
                ...(launch === 'command' ? { command: command.trim() } : {}),
              }),
        };
        const saved = await api.mcp.edit(edit);
        onSaved(saved.name);
      } else {
        const options = {
          displayName: displayName.trim() || undefined,
          enabled,
          trusted,
          callTimeoutMs,
          ...(rootsChanged ? { roots: rootList } : {}),
        };
        const stdio = {
          args: parseArgumentLines(args),
          cwd: cwd.trim() || undefined,
          env: parsedSecrets.values,
          ...options,
        };
        const input: McpServerInput =
          launch === 'url'
            ? {
                url: url.trim(),
                type: transport,
                headers: parsedSecrets.values,
                ...(oauthClientId.trim() ? { oauthClientId: oauthClientId.trim() } : {}),
                ...crossApp.added(),
                ...options,
              }
            : launch === 'package'
              ? { package: bundled, ...stdio }
              : { command: command.trim(), ...stdio };
        const saved = await api.mcp.add({ name: name.trim(), server: input });
        onSaved(saved.name);
      }
      onClose();
    } catch (failure) {
      const found = fieldProblems(failure, 'server.');
      if (found.rename) found.name = found.rename;
      setProblems(found);
      setBusy(false);
    }
  };

  const known = new Set([
    'name',
    'rename',
    'displayName',
    'command',
    'package',
    'args',
    'cwd',
    'url',
    'type',
    'env',
    'headers',
    'callTimeoutMs',
    'oauthClientId',
    'oauthClientSecret',
    'crossAppAccess',
    'idpClientSecret',
    'idpIdToken',
    'roots',
  ]);
  const otherProblems = Object.entries(problems).filter(([field]) => !known.has(field.split('.')[0] ?? ''));

  return (
    <Modal
      title={server ? `Edit ${server.displayName || server.name}` : 'Add an MCP server'}
      wide
      onClose={onClose}
      testId="server-form"
      actions={
        <>
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form="server-form" className="button button-primary" disabled={busy}>
            {server ? 'Save' : 'Add server'}
          </button>
        </>
      }
    >
      <form
        noValidate
        id="server-form"
        className="form form-grid"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Field label="Name" hint="Its key in settings; rules and tool names use it." problem={problems.name}>
          {(props) => (
            <input
              {...props}
              value={name}
              required
              onChange={(event) => setName(event.target.value)}
              autoFocus={!server}
            />
          )}
        </Field>
        <Field label="Display name (optional)" problem={problems.displayName}>
          {(props) => <input {...props} value={displayName} onChange={(event) => setDisplayName(event.target.value)} />}
        </Field>
        <fieldset className="field segmented-field span-2" disabled={Boolean(server)}>
          <legend>How it runs</legend>
          <div className="segmented">
            {(
              [
                ['command', 'A command (stdio)'],
                ['package', 'Bundled with the app'],
                ['url', 'A URL (HTTP)'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className={`segment${launch === value ? ' is-selected' : ''}`}>
                <input
                  type="radio"
                  name="launch"
                  value={value}
                  checked={launch === value}
                  onChange={() => setLaunch(value)}
                />
                {label}
              </label>
            ))}
          </div>
          {server && <span className="field-hint muted">To change how a server runs, add another one.</span>}
        </fieldset>
        {launch === 'command' && (
          <Field
            label="Command"
            hint="The program to start, e.g. npx or /usr/local/bin/my-server."
            problem={problems.command}
          >
            {(props) => (
              <input
                {...props}
                className="mono"
                value={command}
                required
                onChange={(event) => setCommand(event.target.value)}
              />
            )}
          </Field>
        )}
        {launch === 'package' && (
          <Field label="Bundled server" problem={problems.package}>
            {(props) => (
              <select
                {...props}
                value={bundled}
                disabled={Boolean(server)}
                onChange={(event) => setBundled(BundledServerPackageSchema.parse(event.target.value))}
              >
                {BundledServerPackageSchema.options.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        {launch !== 'url' && (
          <>
            <Field label="Working folder (optional)" problem={problems.cwd}>
              {(props) => (
                <input {...props} className="mono" value={cwd} onChange={(event) => setCwd(event.target.value)} />
              )}
            </Field>
            <Field label="Arguments" hint="One per line; no quoting needed." problem={problems.args}>
              {(props) => (
                <textarea
                  {...props}
                  className="mono"
                  rows={3}
                  value={args}
                  onChange={(event) => setArgs(event.target.value)}
                />
              )}
            </Field>
          </>
        )}
        {launch === 'url' && (
          <>
            <Field label="URL" problem={problems.url}>
              {(props) => (
                <input
                  {...props}
                  type="url"
                  className="mono"
                  value={url}
                  required
                  placeholder="https://example.com/mcp"
                  onChange={(event) => setUrl(event.target.value)}
                />
              )}
            </Field>
            <Field
              label="Transport"
              hint="Automatic tries Streamable HTTP, then falls back to SSE."
              problem={problems.type}
            >
              {(props) => (
                <select
                  {...props}
                  value={transport}
                  onChange={(event) => setTransport(McpHttpTransportSchema.parse(event.target.value))}
                >
                  <option value="auto">Automatic</option>
                  <option value="http">Streamable HTTP</option>
                  <option value="sse">SSE (older servers)</option>
                </select>
              )}
            </Field>
            <Field
              label="OAuth client ID (optional)"
              hint="Only for a server that asks you to sign in but does not register apps by itself: the client ID its owner gave you."
              problem={problems.oauthClientId}
            >
              {(props) => (
                <input
                  {...props}
                  className="mono"
                  value={oauthClientId}
                  onChange={(event) => setOauthClientId(event.target.value)}
                />
              )}
            </Field>
            {crossApp.fields(problems)}
          </>
        )}
        <Field
          label={launch === 'url' ? 'Headers' : 'Environment variables'}
          hint="NAME=value, one per line. Values are secrets: stored encrypted, never shown again."
          problem={problems[secretField]}
        >
          {(props) => (
            <textarea
              {...props}
              className="mono"
              rows={3}
              value={secrets}
              placeholder={launch === 'url' ? 'Authorization=Bearer …' : 'API_TOKEN=…'}
              onChange={(event) => setSecrets(event.target.value)}
            />
          )}
        </Field>
        <div className="field">
          {existingKeys.length > 0 && (
            <>
              <span className="field-label">Stored {launch === 'url' ? 'headers' : 'variables'}</span>
              <ul className="secret-keys">
                {existingKeys.map((key) => (
                  <li key={key}>
                    <span className="mono">{key}</span> <span className="key-set">set</span>
                    <label className="inline-check">
                      <input
                        type="checkbox"
                        checked={removedKeys.includes(key)}
                        onChange={(event) =>
                          setRemovedKeys((current) =>
                            event.target.checked ? [...current, key] : current.filter((entry) => entry !== key),
                          )
                        }
                      />
                      Remove
                    </label>
                  </li>
                ))}
              </ul>
            </>
          )}
          <Field
            label="Roots"
            hint="Folders the server is told it may work in (MCP roots), one per line. The Files server's default is its sandbox."
            problem={problems.roots}
          >
            {(props) => (
              <textarea
                {...props}
                rows={2}
                className="mono"
                value={roots}
                onChange={(event) => setRoots(event.target.value)}
              />
            )}
          </Field>
          <Field label="Call timeout (seconds)" problem={problems.callTimeoutMs}>
            {(props) => (
              <input
                {...props}
                type="number"
                min={0.1}
                step="any"
                value={timeoutSeconds}
                onChange={(event) => setTimeoutSeconds(event.target.value)}
              />
            )}
          </Field>
        </div>
        <div className="span-2 switch-group">
          <Switch
            label="Enabled"
            description={
              containmentOverride ? <LockNote id="lock-containment-form" detail={containmentOverride} /> : undefined
            }
            checked={enabled}
            onChange={setEnabled}
          />
          <Switch
            label={TRUST_ANNOTATIONS}
            description={
              <>
                Read-only hints may then auto-approve tools in the matching global mode.
                {trustOverride && <LockNote id="lock-trust-annotations" detail={trustOverride} />}
              </>
            }
            checked={trusted}
            onChange={setTrusted}
          />
        </div>
        {otherProblems.length > 0 && (
          <div className="span-2">
            <Notice kind="error">{otherProblems.map(([, message]) => message).join(' ')}</Notice>
          </div>
        )}
      </form>
    </Modal>
  );
}
