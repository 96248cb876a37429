import fs from 'node:fs';
import {
  type CrossAppAccess,
  MCP_DEFAULT_CALL_TIMEOUT_MS,
  MCP_DEFAULT_LOG_LEVEL,
  type McpEditInput,
  type McpImportPreview,
  type McpImportSource,
  type McpServerInput,
  type McpServerView,
  type OAuthPrivateKey,
  type OrganisationIdpView,
  OAuthPrivateKeySchema,
} from '../../shared/mcp';
import { parseJsonOrUndefined } from '../../shared/json';
import { z } from 'zod';
import { isReservedSettingName, reservedNameMessage } from '../../shared/setting-names';
import { WorkbenchError } from '../errors';
import type { SecretStore } from '../settings/secret-store';
import type { SettingsSection, SettingsStore } from '../settings/settings-store';
import { parseImportFile, uniqueName, type ImportCandidate, type ParsedImport } from './config-import';
import { importLocation, type LocationEnvironment } from './import-locations';
import { SandboxSettingsSchema, type SandboxSettings } from './sandbox/profile';
import {
  UNRECORDED_IDENTITY,
  type IdentityChange,
  type ServerFacts,
  type ServerFactsByName,
  type ServerIdentity,
} from '../../shared/server-identity';
import { httpIdentity, serverIdentity } from './server-identity';
import { effectiveCrossAppAccess, type OrganisationIdpLookup } from './oauth/organisation-idp';
import { defaultMcpServers } from '../settings/default-servers';
import {
  effectiveRoots,
  isHttpServer,
  MCP_SETTINGS_SECTION,
  McpServersSettingsSchema,
  oauthClientSecretKey,
  SECRET_PLACEHOLDER,
  ServerSettingsSchema,
  secretKey,
  secretPrefix,
  type McpServersSettings,
  type SecretKind,
  type ServerSettings,
} from './server-settings';

const ClientSecretsSchema = z.object({
  secret: z.string().optional(),
  privateKey: OAuthPrivateKeySchema.optional(),
  idpClientSecret: z.string().optional(),
  idToken: z.string().optional(),
});

/** A server's settings as the UI sees them: no secret values, no status (the host adds that). */
export type ServerConfigView = Omit<McpServerView, 'status'>;

/** Everything needed to start a server, secrets included. Never leaves the main process. */
export type LaunchConfig =
  | {
      kind: 'stdio';
      name: string;
      command?: string;
      package?: McpServerView['package'];
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      /** The server's own sandbox settings (docs/user/sandbox.md), and the Files server's roots (its profile has them). */
      sandbox: SandboxSettings;
      roots: string[];
    }
  | {
      kind: 'http';
      name: string;
      url: string;
      headers: Record<string, string>;
      type: 'auto' | 'http' | 'sse';
      oauthClientId?: string;
      oauthClient?: OAuthClientSecrets;
      /** Signs in through the organisation's identity provider (docs/user/mcp-oauth.md#cross-app-access). */
      crossAppAccess?: CrossAppAccess;
    };

/** A pre-registered OAuth client's secret or private key, as kept in the secret store. */
export interface OAuthClientSecrets {
  secret?: string;
  privateKey?: OAuthPrivateKey;
  /** Cross-app access: the secret of the client registered at the identity provider, and the person's ID token. */
  idpClientSecret?: string;
  idToken?: string;
}

/** What can be imported: the contract's sources, and a path for front ends that may name files (the CLI). */
export type ImportSource = McpImportSource | { path: string };

/**
 * The configured MCP servers: the `mcpServers` settings section plus their secrets. Every change
 * writes the secrets first and the settings second, so whoever reacts to the settings finds them.
 */
export interface McpServerConfigService {
  list(): ServerConfigView[];
  /** Throws `not_found`. */
  get(name: string): ServerConfigView;
  /** Throws `conflict` when the name is taken (names compare case-insensitively). */
  add(name: string, server: McpServerInput): ServerConfigView;
  /** Throws `not_found`, `conflict` (rename to a taken name) or `invalid_input` (stdio fields on an HTTP server…). */
  edit(change: McpEditInput): ServerConfigView;
  remove(name: string): void;
  setEnabled(name: string, enabled: boolean): ServerConfigView;
  previewImport(source: ImportSource): McpImportPreview;
  /** Adds what `previewImport` showed (or the servers named in `only`); returns the names they got. */
  import(source: ImportSource, only?: readonly string[]): { added: string[]; skip: McpImportPreview['skip'] };
  /** The server's launch parameters with its secrets; throws `unavailable` naming a secret that is missing. */
  launchConfig(name: string): LaunchConfig;
  /** The server's own sandbox settings (docs/user/sandbox.md#profiles); throws `not_found`, `invalid_input` for an HTTP server. */
  sandboxSettings(name: string): { name: string; settings: SandboxSettings };
  /** Replaces the server's own sandbox settings; the server restarts with them. Throws as `sandboxSettings`. */
  setSandboxSettings(name: string, settings: SandboxSettings): void;
  /** The server's call timeout in ms (its own or the default); throws `not_found`. */
  callTimeoutMs(name: string): number;
  /** The secret values of one server (to keep them out of its logs). */
  secretValues(name: string): string[];
  /**
   * Moves env and header values that someone wrote into settings.json by hand into the secret
   * store, leaving SECRET_PLACEHOLDER behind. Returns the names of the servers it changed.
   */
  adoptPlaintextSecrets(): string[];
  onDidChange(listener: (servers: McpServersSettings) => void): () => void;
  /** Every server's identity, the identity its settings were made for when that differs, and its former names. */
  facts(): ServerFactsByName;
  /**
   * A server renamed, removed or added, after the MCP settings were written: what is bound to it follows
   * (docs/user/approvals.md, "A server's identity"). `added` carries the new server's identity.
   */
  onDidChangeServerName(listener: (change: ServerNameChange) => void): () => void;
  /**
   * The organisation's identity provider (cross-app access) an HTTP server added as `name` at `url` would sign in
   * through (docs/user/organisation-policy.md#oauth), without its client's secret; undefined when its policy names
   * no such server.
   */
  organisationIdpFor(name: string, url: string): OrganisationIdpView | undefined;
}

/** What happened to a server's name; the approval engine moves or drops what is bound to it. */
export type ServerNameChange =
  | { kind: 'renamed'; from: string; to: string }
  | { kind: 'removed'; name: string; identity: ServerIdentity }
  | { kind: 'added'; name: string; identity: ServerIdentity };

export interface McpServerConfigDependencies {
  settings: SettingsStore;
  secrets: SecretStore;
  dataDir: string;
  /** Where other apps keep their configurations; tests point it at a temporary home. */
  locations?: LocationEnvironment;
  /** The organisation's identity providers for cross-app access (docs/user/organisation-policy.md#oauth). */
  organisationIdp?: OrganisationIdpLookup | undefined;
}

export function createMcpServerConfigService({
  settings,
  secrets,
  dataDir,
  locations,
  organisationIdp,
}: McpServerConfigDependencies): McpServerConfigService {
  // A fresh install's servers are the app's own: what they run is recorded, as for a server added through the app.
  const defaults = Object.fromEntries(
    Object.entries(defaultMcpServers(dataDir)).map(([name, server]) => [
      name,
      { ...server, identity: recordOf(server) },
    ]),
  );
  const section: SettingsSection<McpServersSettings> = settings.section(
    MCP_SETTINGS_SECTION,
    McpServersSettingsSchema,
    defaults,
  );
  /**
   * An entry found without a record of what it runs (written outside the app: docs/user/approvals.md, "A server added
   * outside the app") gets one the first time it loads: what it runs then, marked not accepted. When the file cannot
   * be written, it stays without: an entry without a record is not accepted either.
   */
  const recordUnrecorded = (): void => {
    if (Object.values(section.get()).every((server) => server.identity)) return;
    const since = new Date().toISOString();
    try {
      section.update((servers) =>
        Object.fromEntries(
          Object.entries(servers).map(([name, server]) => [
            name,
            server.identity
              ? server
              : { ...server, identity: { ...recordOf(server), since, accepted: false as const } },
          ]),
        ),
      );
    } catch {
      // Read-only or unreadable now: the entry is treated as not accepted all the same, and recorded at a later load.
    }
  };
  recordUnrecorded();
  // settings.json read again while the app runs (settings-watch.ts): after the listeners of this change.
  section.onDidChange(() => queueMicrotask(recordUnrecorded));

  const find = (name: string): [string, ServerSettings] | undefined => {
    const servers = section.get();
    if (Object.hasOwn(servers, name)) return [name, servers[name] as ServerSettings];
    const key = Object.keys(servers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
    return key === undefined ? undefined : [key, servers[key] as ServerSettings];
  };
  const require = (name: string): [string, ServerSettings] => {
    const found = find(name);
    if (!found) throw new WorkbenchError('not_found', `No MCP server is named "${name}".`, { name });
    return found;
  };
  const conflict = (name: string): WorkbenchError =>
    new WorkbenchError('conflict', `An MCP server named "${name}" already exists; choose another name.`, { name });

  const writeSecrets = (name: string, kind: SecretKind, values: Record<string, string | null> | undefined): void => {
    for (const [key, value] of Object.entries(values ?? {})) {
      if (value === null) secrets.delete(secretKey(name, kind, key));
      else secrets.set(secretKey(name, kind, key), value);
    }
  };
  /**
   * A pre-registered client's secret and key, and cross-app access's IdP client secret and ID token: undefined keeps
   * what is stored, null removes it.
   */
  const writeClientSecrets = (
    name: string,
    change: {
      [K in keyof OAuthClientSecrets]?: OAuthClientSecrets[K] | null | undefined;
    },
  ): void => {
    const changes = Object.entries(change).filter(([, value]) => value !== undefined);
    if (changes.length === 0) return;
    const merged = new Map<string, unknown>(Object.entries(readClientSecrets(name) ?? {}));
    for (const [key, value] of changes) {
      if (value === null) merged.delete(key);
      else merged.set(key, value);
    }
    const next = Object.fromEntries(merged);
    if (merged.size === 0) secrets.delete(oauthClientSecretKey(name));
    else secrets.set(oauthClientSecretKey(name), JSON.stringify(next));
  };
  const readClientSecrets = (name: string): OAuthClientSecrets | undefined => {
    const text = secrets.get(oauthClientSecretKey(name));
    const parsed = text === undefined ? undefined : ClientSecretsSchema.safeParse(parseJsonOrUndefined(text));
    return parsed?.success ? (parsed.data as OAuthClientSecrets) : undefined;
  };
  const dropSecrets = (name: string): void => {
    for (const key of secrets.keys(secretPrefix(name))) secrets.delete(key);
  };
  const placeholders = (values: Record<string, unknown> | undefined): Record<string, string> | undefined =>
    values && Object.keys(values).length > 0
      ? Object.fromEntries(Object.keys(values).map((key) => [key, SECRET_PLACEHOLDER]))
      : undefined;

  const toSettings = (server: McpServerInput): ServerSettings => {
    if (
      'url' in server &&
      (server.oauthClientSecret !== undefined || server.oauthPrivateKey !== undefined) &&
      server.oauthClientId === undefined
    ) {
      throw new WorkbenchError(
        'invalid_input',
        'An OAuth client secret or key belongs to a pre-registered client: give its client id too.',
      );
    }
    const {
      env,
      headers,
      oauthClientSecret: _secret,
      oauthPrivateKey: _key,
      idpClientSecret: _idpSecret,
      idpIdToken: _idToken,
      ...rest
    } = server as McpServerInput & {
      env?: Record<string, string>;
      headers?: Record<string, string>;
      oauthClientSecret?: string;
      oauthPrivateKey?: OAuthPrivateKey;
      idpClientSecret?: string;
      idpIdToken?: string;
    };
    const result: Record<string, unknown> = { ...rest };
    if (placeholders(env)) result.env = placeholders(env);
    if (placeholders(headers)) result.headers = placeholders(headers);
    return result as ServerSettings;
  };

  const update = (change: (servers: McpServersSettings) => McpServersSettings): void => {
    section.update(change);
  };
  const nameListeners = new Set<(change: ServerNameChange) => void>();
  const announce = (change: ServerNameChange): void => {
    for (const listener of [...nameListeners]) listener(change);
  };
  /** New servers' secrets, then the settings that point at them; when the settings cannot be written, the secrets go again. */
  const writeAll = (added: readonly { name: string; server: McpServerInput }[], writeSettings: () => void): void => {
    try {
      for (const { name, server } of added) {
        writeSecrets(name, 'env', 'env' in server ? server.env : undefined);
        writeSecrets(name, 'headers', 'headers' in server ? server.headers : undefined);
        if ('url' in server)
          writeClientSecrets(name, {
            secret: server.oauthClientSecret,
            privateKey: server.oauthPrivateKey,
            idpClientSecret: server.idpClientSecret,
            idToken: server.idpIdToken,
          });
      }
      writeSettings();
    } catch (error) {
      for (const { name } of added) dropSecrets(name);
      throw error;
    }
  };

  /** The identity provider a server signs in through, the organisation's or the person's (effectiveCrossAppAccess). */
  const crossAppOf = (name: string, server: ServerSettings, facts?: ServerFactsByName) => {
    if (!isHttpServer(server)) return {};
    const organisation = organisationIdp?.(name, facts ?? service.facts());
    return effectiveCrossAppAccess(server.crossAppAccess, organisation);
  };
  /** A server's view, with the identity provider in force (docs/user/organisation-policy.md#oauth). */
  const view = (name: string, server: ServerSettings): ServerConfigView => {
    const result = toView(name, server);
    const { crossAppAccess, organisation } = crossAppOf(name, server);
    if (!isHttpServer(server)) return result;
    const { crossAppAccess: _own, ...rest } = result;
    return {
      ...rest,
      ...(crossAppAccess ? { crossAppAccess } : {}),
      ...(organisation
        ? {
            crossAppAccessByOrganisation: {
              locked: organisation.locked,
              clientSecret: organisation.idpClientSecret !== undefined,
            },
          }
        : {}),
    };
  };
  /** A change of the identity provider of a server whose identity provider the organisation locked is refused. */
  const refuseLockedIdp = (
    name: string,
    server: ServerSettings,
    change: { crossAppAccess?: unknown; idpClientSecret?: unknown },
    facts?: ServerFactsByName,
  ): void => {
    if (change.crossAppAccess === undefined && change.idpClientSecret === undefined) return;
    if (!crossAppOf(name, server, facts).organisation?.locked) return;
    throw new WorkbenchError(
      'locked',
      `Set by your organisation: the identity provider "${name}" signs in through (cross-app access) cannot be changed.`,
      { name },
    );
  };

  const service: McpServerConfigService = {
    list: () => Object.entries(section.get()).map(([name, server]) => view(name, server)),
    get: (name) => {
      const [key, server] = require(name);
      return view(key, server);
    },
    add(name, server) {
      // Everything is checked before anything is written: a refused add leaves settings and secrets as they were.
      refuseReservedName(name);
      if (find(name)) throw conflict(name);
      const added = withIdentity(checkedSettings(name, toSettings(server)));
      if ('url' in server) refuseLockedIdp(name, added, server, new Map([...service.facts(), [name, factsOf(added)]]));
      writeAll([{ name, server }], () => update((servers) => ({ ...servers, [name]: added })));
      announce({ kind: 'added', name, identity: serverIdentity(added) });
      return service.get(name);
    },
    edit(change) {
      const [name, current] = require(change.name);
      const target = change.rename ?? name;
      if (target !== name && find(target) && find(target)?.[0] !== name) throw conflict(target);
      applyEdit(name, current, change); // refuses a bad edit before any secret is written
      refuseChangedSinceShown(name, current, change);
      refuseLockedIdp(name, current, change);
      if (target !== name) {
        // Copy every secret to the new name before the settings point at it, then drop the old ones.
        for (const key of secrets.keys(secretPrefix(name))) {
          const value = secrets.get(key);
          if (value !== undefined) secrets.set(secretPrefix(target) + key.slice(secretPrefix(name).length), value);
        }
      }
      writeSecrets(target, 'env', change.env);
      writeSecrets(target, 'headers', change.headers);
      writeClientSecrets(target, {
        secret: change.oauthClientSecret,
        privateKey: change.oauthPrivateKey,
        idpClientSecret: change.idpClientSecret,
        idToken: change.idpIdToken,
      });
      // Edited as the file holds the server now (the CLI may have changed it since `next` was checked).
      update((servers) =>
        Object.fromEntries(
          Object.entries(servers).map(([key, value]) =>
            key === name
              ? [target, identityAfterEdit(name, target, value, applyEdit(name, value, change), change)]
              : [key, value],
          ),
        ),
      );
      if (target !== name) dropSecrets(name);
      if (target !== name) announce({ kind: 'renamed', from: name, to: target });
      return service.get(target);
    },
    remove(name) {
      const [key, server] = require(name);
      update((servers) => Object.fromEntries(Object.entries(servers).filter(([candidate]) => candidate !== key)));
      dropSecrets(key);
      announce({ kind: 'removed', name: key, identity: serverIdentity(server) });
    },
    setEnabled(name, enabled) {
      return service.edit({ name, enabled });
    },
    previewImport(source) {
      return planImport(readImport(source, locations), new Set(Object.keys(section.get())));
    },
    import(source, only) {
      const parsed = readImport(source, locations);
      const plan = planImport(parsed, new Set(Object.keys(section.get())));
      const unknown = (only ?? []).filter((name) => !plan.add.some((item) => item.originalName === name));
      if (unknown.length > 0) {
        throw new WorkbenchError(
          'invalid_input',
          `${plan.file} has no importable server named ${unknown.map((name) => `"${name}"`).join(', ')}.`,
          { unknown },
        );
      }
      const chosen = plan.add
        .filter((item) => !only || only.includes(item.originalName))
        .map((item) => ({
          name: item.name,
          server: (parsed.servers.find((server) => server.originalName === item.originalName) as ImportCandidate)
            .server,
        }));
      const added = chosen.map(({ name, server }) => {
        refuseReservedName(name);
        return [name, withIdentity(checkedSettings(name, toSettings(server)))] as const;
      });
      writeAll(chosen, () => update((servers) => ({ ...servers, ...Object.fromEntries(added) })));
      for (const [name, server] of added) announce({ kind: 'added', name, identity: serverIdentity(server) });
      return { added: chosen.map(({ name }) => name), skip: plan.skip };
    },
    launchConfig(name) {
      const [key, server] = require(name);
      const read = (kind: SecretKind, values: Record<string, string> | undefined): Record<string, string> => {
        const result: Record<string, string> = {};
        for (const [entry, stored] of Object.entries(values ?? {})) {
          const value = stored === SECRET_PLACEHOLDER ? secrets.get(secretKey(key, kind, entry)) : stored;
          if (value === undefined) {
            throw new WorkbenchError(
              'unavailable',
              `The secret value of ${kind === 'env' ? 'environment variable' : 'header'} ${entry} is missing; set it again in the server's settings.`,
            );
          }
          result[entry] = value;
        }
        return result;
      };
      if (isHttpServer(server)) {
        // The organisation's identity provider comes with its client's secret there (or none): never the person's.
        const { crossAppAccess, organisation } = crossAppOf(key, server);
        const stored = server.oauthClientId || crossAppAccess ? readClientSecrets(key) : undefined;
        const { idpClientSecret: ownIdpSecret, ...client } = stored ?? {};
        const idpClientSecret = organisation ? organisation.idpClientSecret : ownIdpSecret;
        const oauthClient = { ...client, ...(idpClientSecret !== undefined ? { idpClientSecret } : {}) };
        return {
          kind: 'http',
          name: key,
          url: server.url,
          headers: read('headers', server.headers),
          type: server.type ?? 'auto',
          ...(server.oauthClientId ? { oauthClientId: server.oauthClientId } : {}),
          ...(Object.keys(oauthClient).length > 0 ? { oauthClient } : {}),
          ...(crossAppAccess ? { crossAppAccess } : {}),
        };
      }
      return {
        kind: 'stdio',
        name: key,
        ...(server.command ? { command: server.command } : {}),
        ...(server.package ? { package: server.package } : {}),
        args: server.args ?? [],
        env: read('env', server.env),
        ...(server.cwd ? { cwd: server.cwd } : {}),
        sandbox: server.sandbox ?? {},
        // The Files server's roots are in its profile (a change restarts it in its new box); other servers' are not.
        roots: server.package === '@modelcontextprotocol/server-filesystem' ? effectiveRoots(server) : [],
      };
    },
    sandboxSettings(name) {
      const [key, server] = require(name);
      if (isHttpServer(server))
        throw new WorkbenchError(
          'invalid_input',
          `"${key}" is a remote (HTTP) server: it runs elsewhere, so it has no sandbox here.`,
          { name: key },
        );
      return { name: key, settings: server.sandbox ?? {} };
    },
    setSandboxSettings(name, settings) {
      const { name: key } = service.sandboxSettings(name);
      const next = SandboxSettingsSchema.parse(settings);
      const empty = Object.values(next).every((value) => value === undefined);
      update((servers) =>
        Object.fromEntries(
          Object.entries(servers).map(([candidate, value]) =>
            candidate === key ? [candidate, { ...value, sandbox: empty ? undefined : next }] : [candidate, value],
          ),
        ),
      );
    },
    callTimeoutMs: (name) => require(name)[1].callTimeoutMs ?? MCP_DEFAULT_CALL_TIMEOUT_MS,
    secretValues(name) {
      // A pre-registered client's secrets are one JSON entry: each value in it is a secret on its own.
      const clientSecrets = readClientSecrets(name);
      const found = find(name);
      const organisationSecret = found ? crossAppOf(found[0], found[1]).organisation?.idpClientSecret : undefined;
      return [
        ...secrets.keys(secretPrefix(name)).flatMap((key) => secrets.get(key) ?? []),
        ...[clientSecrets?.secret, clientSecrets?.idpClientSecret, clientSecrets?.idToken, organisationSecret].filter(
          (value): value is string => value !== undefined,
        ),
      ];
    },
    adoptPlaintextSecrets() {
      const changed: string[] = [];
      const servers = section.get();
      const next: McpServersSettings = {};
      for (const [name, server] of Object.entries(servers)) {
        const adopt = (
          kind: SecretKind,
          values: Record<string, string> | undefined,
        ): Record<string, string> | undefined => {
          if (!values) return values;
          const result: Record<string, string> = {};
          for (const [key, value] of Object.entries(values)) {
            if (value !== SECRET_PLACEHOLDER) {
              secrets.set(secretKey(name, kind, key), value);
              if (!changed.includes(name)) changed.push(name);
            }
            result[key] = SECRET_PLACEHOLDER;
          }
          return result;
        };
        next[name] = isHttpServer(server)
          ? { ...server, ...(server.headers ? { headers: adopt('headers', server.headers) } : {}) }
          : { ...server, ...(server.env ? { env: adopt('env', server.env) } : {}) };
      }
      if (changed.length > 0) update(() => next);
      return changed;
    },
    onDidChange: (listener) => section.onDidChange(listener),
    facts() {
      const facts = new Map<string, ServerFacts>();
      for (const [name, server] of Object.entries(section.get())) facts.set(name, factsOf(server));
      return facts;
    },
    onDidChangeServerName(listener) {
      nameListeners.add(listener);
      return () => void nameListeners.delete(listener);
    },
    organisationIdpFor(name, url) {
      if (!organisationIdp || url.trim() === '') return undefined;
      // As `add` would find it: the new server beside the configured ones (one of them may share its URL).
      const candidate: ServerFacts = { identity: httpIdentity(url.trim()), formerNames: [] };
      const found = organisationIdp(name.trim(), new Map([...service.facts(), [name.trim(), candidate]]));
      if (!found) return undefined;
      return { ...found.crossAppAccess, locked: found.locked, clientSecret: found.idpClientSecret !== undefined };
    },
  };
  return service;
}

/**
 * After an edit: a rename keeps the old name among the former ones (an organisation's rule by name follows it); the
 * identity the settings were made for stays, unless the person accepts what the server runs now.
 */
function identityAfterEdit(
  name: string,
  target: string,
  before: ServerSettings,
  server: ServerSettings,
  change: McpEditInput,
): ServerSettings {
  const next: ServerSettings = { ...server };
  if (target !== name) {
    const former = [...(server.formerNames ?? []).filter((entry) => entry !== name && entry !== target), name].slice(
      -MAX_FORMER_NAMES,
    );
    next.formerNames = former;
  }
  // The identity its settings were made for stays through every edit, until the person accepts what it runs now; an
  // entry that had no record gets one, still not accepted.
  if (change.acceptIdentity) next.identity = { ...recordOf(server), since: new Date().toISOString() };
  else next.identity = server.identity ?? { ...recordOf(before), since: new Date().toISOString(), accepted: false };
  return next;
}

/**
 * A server as it is added: it records what it runs, so that a later change of its command — by an edit, or by hand
 * in settings.json while the app is closed — reads as a changed launch spec (docs/user/approvals.md).
 */
function withIdentity(server: ServerSettings): ServerSettings {
  return { ...server, identity: { ...recordOf(server), since: new Date().toISOString() } };
}

/** What settings.json records of what a server runs. */
function recordOf(server: ServerSettings): { key: string; description: string } {
  const { key, description } = serverIdentity(server);
  return { key, description };
}

const MAX_FORMER_NAMES = 16;

/**
 * What the approval engine knows of a server. An entry records the identity its settings were made for when it was
 * added, imported or accepted; one without that record, or with one not accepted (found in settings.json, written
 * outside the app), was made for nothing the person accepted: what is given to it waits (docs/user/approvals.md).
 */
export function factsOf(server: ServerSettings): ServerFacts {
  const identity = serverIdentity(server);
  const recorded = server.identity;
  const changed: IdentityChange | undefined =
    !recorded || recorded.accepted === false
      ? { previous: UNRECORDED_IDENTITY, current: identity.description, unrecorded: true }
      : recorded.key !== identity.key
        ? { previous: recorded.description, current: identity.description }
        : undefined;
  return {
    identity,
    ...(changed ? { identityChanged: changed } : {}),
    ...(recorded?.since && recorded.accepted !== false ? { identitySince: recorded.since } : {}),
    formerNames: server.formerNames ?? [],
  };
}

/**
 * An accept of what a server runs now, given with what the person was shown it runs (`acceptedIdentity`), is refused
 * when it runs something else by then: changed again while they were asked, or accepted meanwhile
 * (docs/user/cli.md#settingsjson-while-chat-runs).
 */
function refuseChangedSinceShown(name: string, current: ServerSettings, change: McpEditInput): void {
  if (!change.acceptIdentity || change.acceptedIdentity === undefined) return;
  const now = factsOf(current).identityChanged?.current;
  if (now === change.acceptedIdentity) return;
  throw new WorkbenchError(
    'conflict',
    now === undefined
      ? `"${name}" runs what was accepted before (${serverIdentity(current).description}), not ${change.acceptedIdentity}: nothing to accept.`
      : `"${name}" runs ${now} now, not ${change.acceptedIdentity} as you were shown: it was changed again meanwhile, so nothing was accepted.`,
    { name },
  );
}

function applyEdit(name: string, current: ServerSettings, change: McpEditInput): ServerSettings {
  const next: Record<string, unknown> = { ...current };
  const invalid = (what: string): WorkbenchError =>
    new WorkbenchError('invalid_input', `${what} To change how "${name}" is reached, remove it and add it again.`, {
      name,
    });
  if (isHttpServer(current)) {
    if (
      change.command !== undefined ||
      change.args !== undefined ||
      change.cwd !== undefined ||
      change.env !== undefined
    ) {
      throw invalid(`"${name}" is an HTTP server: it has no command, args, cwd or env.`);
    }
  } else if (
    change.url !== undefined ||
    change.headers !== undefined ||
    change.type !== undefined ||
    change.oauthClientId !== undefined ||
    change.oauthClientSecret !== undefined ||
    change.oauthPrivateKey !== undefined ||
    change.crossAppAccess !== undefined ||
    change.idpClientSecret !== undefined ||
    change.idpIdToken !== undefined
  ) {
    throw invalid(`"${name}" is a stdio server: it has no url, headers, type, OAuth client id or cross-app access.`);
  }
  const set = (key: string, value: unknown): void => {
    if (value === undefined) return;
    next[key] = value === null ? undefined : value;
  };
  set('displayName', change.displayName);
  set('enabled', change.enabled);
  set('trusted', change.trusted);
  set('callTimeoutMs', change.callTimeoutMs);
  set('logLevel', change.logLevel);
  set('roots', change.roots);
  set('args', change.args);
  set('cwd', change.cwd);
  set('url', change.url);
  set('type', change.type);
  set('oauthClientId', change.oauthClientId);
  set('crossAppAccess', change.crossAppAccess);
  if (change.command !== undefined) {
    next.command = change.command;
    next.package = undefined;
  }
  const mergeKeys = (
    existing: unknown,
    changes: Record<string, string | null> | undefined,
  ): Record<string, string> | undefined => {
    const merged = new Map(Object.entries((existing as Record<string, string> | undefined) ?? {}));
    for (const [key, value] of Object.entries(changes ?? {})) {
      if (value === null) merged.delete(key);
      else merged.set(key, SECRET_PLACEHOLDER);
    }
    return merged.size > 0 ? Object.fromEntries(merged) : undefined;
  };
  if (change.env !== undefined) set('env', mergeKeys(current.env, change.env) ?? null);
  if (change.headers !== undefined)
    set('headers', mergeKeys((current as { headers?: unknown }).headers, change.headers) ?? null);
  return Object.fromEntries(Object.entries(next).filter(([, value]) => value !== undefined)) as ServerSettings;
}

function toView(name: string, server: ServerSettings): ServerConfigView {
  const facts = factsOf(server);
  const common = {
    identity: facts.identity,
    ...(facts.identityChanged ? { identityChanged: facts.identityChanged } : {}),
    name,
    displayName: server.displayName?.trim() || name,
    enabled: server.enabled ?? true,
    trusted: server.trusted ?? false,
    callTimeoutMs: server.callTimeoutMs ?? MCP_DEFAULT_CALL_TIMEOUT_MS,
    logLevel: server.logLevel ?? MCP_DEFAULT_LOG_LEVEL,
    roots: effectiveRoots(server),
  };
  if (isHttpServer(server)) {
    return {
      ...common,
      kind: 'http',
      url: server.url,
      type: server.type ?? 'auto',
      ...(server.oauthClientId ? { oauthClientId: server.oauthClientId } : {}),
      ...(server.crossAppAccess ? { crossAppAccess: server.crossAppAccess } : {}),
      envKeys: [],
      headerKeys: Object.keys(server.headers ?? {}),
    };
  }
  return {
    ...common,
    kind: 'stdio',
    ...(server.command ? { command: server.command } : {}),
    ...(server.package ? { package: server.package } : {}),
    args: server.args ?? [],
    ...(server.cwd ? { cwd: server.cwd } : {}),
    envKeys: Object.keys(server.env ?? {}),
    headerKeys: [],
  };
}

function readImport(source: ImportSource, locations: LocationEnvironment | undefined): ParsedImport {
  if ('text' in source) return parseImportFile(source.fileName, source.text);
  const file = 'path' in source ? source.path : importLocation(source.app, locations);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new WorkbenchError(
      missing ? 'not_found' : 'unavailable',
      `Cannot import from ${file}: ${missing ? 'there is no such file' : (error as Error).message}.`,
      { file },
    );
  }
  return parseImportFile(file, text, 'app' in source ? source.app : undefined);
}

function planImport(parsed: ParsedImport, existing: Set<string>): McpImportPreview {
  const taken = new Set(existing);
  const add: McpImportPreview['add'] = [];
  for (const { originalName, server } of parsed.servers) {
    const name = uniqueName(
      originalName
        .replace(/[\p{Cc}\p{Cs}]+/gu, ' ')
        .trim()
        .slice(0, 56) || 'server',
      taken,
    );
    taken.add(name);
    add.push({
      name,
      originalName,
      renamed: name !== originalName,
      kind: 'url' in server ? 'http' : 'stdio',
      summary:
        'url' in server
          ? server.url
          : ['command' in server ? server.command : server.package, ...(server.args ?? [])].join(' '),
      enabled: server.enabled ?? true,
      envKeys: Object.keys(('env' in server ? server.env : undefined) ?? {}),
      headerKeys: Object.keys(('headers' in server ? server.headers : undefined) ?? {}),
    });
  }
  return { file: parsed.file, format: parsed.format, add, skip: parsed.skip };
}

/** A name no settings map can hold (src/shared/setting-names.ts): refused before anything is written. */
function refuseReservedName(name: string): void {
  if (isReservedSettingName(name.trim()))
    throw new WorkbenchError('invalid_input', `Cannot add this MCP server: ${reservedNameMessage(name.trim())}.`, {
      name,
    });
}

/** The settings a new server will have, checked as the settings file will check them, before anything is written. */
function checkedSettings(name: string, server: ServerSettings): ServerSettings {
  const parsed = ServerSettingsSchema.safeParse(server);
  if (parsed.success) return server;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.map(String).join('.') || 'server'}: ${issue.message}`,
  );
  throw new WorkbenchError('invalid_input', `Cannot add the MCP server "${name}": ${issues.join('; ')}.`, {
    name,
    issues,
  });
}
