import path from 'node:path';
import type { AppInfo, HostKind } from '../shared/app';
import { APP_NAME } from '../shared/app-name';
import { builtAssets } from './assets';
import { createApprovalServices, type ApprovalServices } from './approval/approval-services';
import { holderKind } from './approval/request-holders';
import { loadManagedPolicy, locateManagedPolicy, ManagedPolicyError } from './approval/managed-policy';
import { recordManagedPolicySeen } from './approval/managed-policy-audit';
import { organisationIdpLookup } from './approval/organisation-idp-lookup';
import { createSandboxProfileService, type SandboxProfileService } from './approval/sandbox-profiles';
import { createSandboxWideningService, type SandboxWideningService } from './approval/sandbox-widenings';
import type { ToolCatalog } from './approval/tool-catalog';
import type { AuditLog, AuditRecorder } from './audit/audit-log';
import { createAuditExportDownloads, type AuditExportDownloads } from './audit/export-downloads';
import { createAuditShipper, type AuditShipper } from './audit/shipping/audit-shipper';
import { checkpointKey, publicKeyFrom, type CheckpointKey } from './audit/checkpoint';
import { createCheckpointer, type Checkpointer } from './audit/checkpointer';
import { createShippingSettings, type ShippingSettings } from './audit/shipping/shipping-settings';
import { AuditShippingSettingsSchema } from '../shared/audit-shipping';
import { createReceivedVerifier, type ReceivedVerifier } from './audit/shipping/verify-against';
import { wakingAuditLog } from './audit/shipping/waking-audit-log';
import { createAuditExportFolder, type AuditExportFolder } from './audit/export-folder';
import { createAuditInsights, type AuditInsights } from './approval/insights/insights';
import { createSqliteAuditLog } from './audit/sqlite-audit-log';
import { createChatRepository } from './chat/chat-repository';
import { createChatService, type ChatService } from './chat/chat-service';
import { openChatSettings, type ChatSettings } from './chat/chat-settings';
import { createExchangeCoordinator, type ExchangeCoordinator } from './chat/exchange-coordinator';
import { createMessageStore } from './chat/message-store';
import { createServerRequests } from './chat/server-request-flow';
import { createAppCalls, type AppCalls } from './mcp/app-calls';
import { createAppFrameSlots, type AppFrameSlots } from './mcp/app-frame-slots';
import { findViewCall } from './chat/view-calls';
import { createAppViewPins, createAppViews, type AppViews } from './mcp/app-view-pins';
import { createFollowedTasks } from './chat/followed-tasks';
import { createToolLoop } from './chat/tool-loop';
import { createEventHub, type EventHub } from './event-hub';
import { createAppViewCache } from './mcp/app-view-cache';
import type { EventPayload } from '../shared/contract';
import type { DecisionOrigin } from '../shared/decisions';
import type { McpServerRequestView, ServerRequestDecision } from '../shared/server-request-views';
import { createProviderService, type ProviderService } from './llm/provider-service';
import { createMcpHost, type McpHost, type McpHostOptions } from './mcp/mcp-host';
import type { CallDoor } from './mcp/call-door';
import { WorkbenchError } from './errors';
import { callDoor } from './approval/call-door-check';
import { createMcpServerConfigService, type McpServerConfigService } from './mcp/server-config-service';
import { openFileSecretStore, SECRETS_FILE_NAME, type SecretCipher, type SecretStore } from './settings/secret-store';
import {
  openSettingsStore,
  SETTINGS_FILE_NAME,
  SettingsError,
  type SettingsSection,
  type SettingsStore,
} from './settings/settings-store';
import { watchSettings, type SettingsWatch } from './settings/settings-watch';
import { DATABASE_FILE_NAME, DatabaseOpenError, openDatabase, type Database } from './storage/database';
import { secureDataFolder, type DataFolderRepair } from './storage/owner-only';

/** The plain-Node services every host wires: the Electron app, browser mode and the CLI. */
export interface Services {
  readonly dataDir: string;
  /** What was tightened in the data folder at start; the hosts tell the person (`describeDataFolderRepair`). */
  readonly dataFolderRepair: DataFolderRepair;
  readonly databaseFile: string;
  readonly events: EventHub;
  readonly settings: SettingsStore;
  /**
   * settings.json read again when it changes while the app runs (docs/user/data.md, "Editing settings.json"). Built
   * stopped: the long-running hosts call `start()`; `close()` stops it. Its outcomes go out as `settings.onDidReload`.
   */
  readonly settingsWatch: SettingsWatch;
  readonly secrets: SecretStore;
  readonly chats: ChatService;
  /** Chats as conversations, the one owner of the approval round trip: messages, the tool loop, stop. Hosts await `conversations.dispose()` before `close()`. */
  readonly conversations: ExchangeCoordinator;
  /** The `chat` settings section: the round limit of the tool loop. */
  readonly chatSettings: SettingsSection<ChatSettings>;
  /** LLM providers: configuration, keys (never returned), adapters for the tool loop. */
  readonly providers: ProviderService;
  readonly approvals: ApprovalServices;
  /** The configured MCP servers (settings + secrets). */
  readonly mcpServers: McpServerConfigService;
  /** The running MCP servers and their tools. Built stopped: the host calls `mcp.start()` once it is up. */
  readonly mcp: McpHost;
  /** Widening and narrowing the servers' sandbox profiles, and their blocks in the audit log (docs/user/sandbox.md). */
  readonly sandboxProfiles: SandboxProfileService;
  /** Requests to widen a profile, waiting in the pending store until the person decides (docs/user/sandbox.md#widening). */
  readonly sandboxWidenings: SandboxWideningService;
  readonly audit: AuditLog;
  /**
   * Ships the audit log to the configured sinks (the `auditShipping` settings section). Built stopped: the
   * long-running hosts call `start()` once they are up and await `stop()` before `close()`.
   */
  readonly auditShipping: AuditShipper;
  /** The person's audit sinks (the `auditShipping` section and the OTLP headers in the secret store). */
  readonly shippingSettings: ShippingSettings;
  /** Signed checkpoints of the audit log (the setting, the key, the timer). */
  readonly checkpointer: Checkpointer;
  /** The local log checked against the rows a collector received (`audit verify --against`). */
  readonly auditReceived: ReceivedVerifier;
  /** Exports prepared for the renderer to save where the person picks (browser mode and the app alike). */
  readonly auditDownloads: AuditExportDownloads;
  /** Exports into the data folder's exports/ folder: all the contract's `audit.export` may write. */
  readonly auditExports: AuditExportFolder;
  /** Approval insights: the figures of a period, and suggestions from them (docs/user/insights.md). */
  readonly auditInsights: AuditInsights;
  /** What MCP Apps views ask, decided like the model's calls (docs/user/mcp-apps.md#what-a-view-may-ask). */
  readonly appCalls: AppCalls;
  /** Which view each pool proxy frame serves, for its frame's CSP reports (docs/user/mcp-apps.md#in-the-audit-log). */
  readonly appFrameSlots: AppFrameSlots;
  /** Tools' views, pinned by hash per server identity (docs/user/mcp-apps.md#pinned-views). */
  readonly appViews: AppViews;
  /**
   * A person's answer to a server's request or a view's tool call: applied here when this process holds it, else
   * relayed to the process that does through the answers inbox (docs/user/approvals.md#one-inbox).
   */
  decideServerRequest(id: string, decision: ServerRequestDecision): Promise<{ request: McpServerRequestView | null }>;
  appInfo(): AppInfo;
  close(): void;
}

export interface ServicesOptions {
  dataDir: string;
  host: HostKind;
  version: string;
  /** Extra versions the host knows (Electron's and Chromium's). */
  versions?: { electron?: string; chrome?: string };
  /**
   * How secrets are protected at rest, the first one used for writing; the Electron host passes one
   * built on safeStorage (and the plain one, to read what the CLI or browser mode wrote).
   */
  secretCiphers?: readonly SecretCipher[];
  onListenerError?: (error: unknown) => void;
  /** The organisation's policy file; undefined reads WORKBENCH_MANAGED_POLICY, else the OS location; null means none. */
  managedPolicyFile?: string | null;
  /** Where approval decisions are recorded; the app's own audit log unless a test passes another. */
  audit?: AuditRecorder;
  /** The tools of the connected MCP servers, for `policy.explain`. */
  tools?: ToolCatalog;
  /** Timeouts, restart policy and Node runtime of the MCP host; tests shorten them. */
  mcp?: Partial<McpHostOptions>;
  /** Shows an MCP server's OAuth sign-in page in the person's browser; false (or left out) where it cannot. */
  openSignInPage?: (url: string) => boolean;
  /** The CLI command this process runs (`chat`): other processes name it beside the requests it holds. */
  command?: string;
}

/** Errors that stop the start and that a person can fix (the message names the file): shown as they are. */
export function isStartupProblem(error: unknown): error is DatabaseOpenError | SettingsError | ManagedPolicyError {
  return error instanceof DatabaseOpenError || error instanceof SettingsError || error instanceof ManagedPolicyError;
}

/**
 * Opens the settings, secrets and database and builds the services. Throws `SettingsError`,
 * `ManagedPolicyError` or `DatabaseOpenError`, naming the file, when one of them cannot be used;
 * nothing is overwritten.
 */
export function createServices(options: ServicesOptions): Services {
  // Before anything reads or writes it: the folder 0700 and our files in it 0600 (docs/user/data.md).
  const dataFolderRepair = secureDataFolder(options.dataDir);
  // WORKBENCH_MANAGED_POLICY, else the OS's managed-settings location (docs/user/organisation-policy.md).
  const located =
    options.managedPolicyFile === undefined
      ? locateManagedPolicy()
      : options.managedPolicyFile === null
        ? null
        : { file: options.managedPolicyFile, source: 'env' as const };
  const managed = loadManagedPolicy(located?.file, located?.source);
  const settings = openSettingsStore(path.join(options.dataDir, SETTINGS_FILE_NAME));
  const secrets = openFileSecretStore(path.join(options.dataDir, SECRETS_FILE_NAME), options.secretCiphers);
  const databaseFile = path.join(options.dataDir, DATABASE_FILE_NAME);
  const db: Database = openDatabase(databaseFile);
  const events = createEventHub(options.onListenerError);
  const providers = createProviderService({ settings, secrets, events });
  const chats = createChatService({
    repository: createChatRepository(db),
    events,
    providers: {
      defaults: () => {
        const first = providers.list()[0];
        return { providerId: first?.id ?? null, model: first?.defaultModel ?? null };
      },
      defaultModelOf: (id) => providers.get(id).defaultModel ?? null,
    },
  });
  const organisationIdps = managed?.policy.oauth?.crossAppAccess;
  const mcpServers = createMcpServerConfigService({
    settings,
    secrets,
    dataDir: options.dataDir,
    ...(organisationIdps ? { organisationIdp: organisationIdpLookup(organisationIdps) } : {}),
  });
  // Built before the coordinator that answers the servers' requests: they reach it through `late`.
  const late: { coordinator?: ExchangeCoordinator; door?: CallDoor; sandboxProfiles?: SandboxProfileService } = {};
  const mcp = createMcpHost({
    config: mcpServers,
    events,
    dataDir: options.dataDir,
    options: { clientVersion: options.version, sandbox: { limits: managed?.policy.sandbox }, ...options.mcp },
    // A block is an audit row (docs/user/sandbox.md#blocks); one that cannot be recorded stays in the server's log.
    onBlock: (serverName, block, call) => {
      try {
        late.sandboxProfiles?.recordBlock(serverName, block, call);
      } catch (error) {
        options.onListenerError?.(error);
      }
    },
    serverRequests: {
      sample: (origin, params) =>
        late.coordinator
          ? late.coordinator.sample(origin, params)
          : Promise.reject(new Error('AI Workbench is not ready.')),
      elicit: (origin, params) =>
        late.coordinator ? late.coordinator.elicit(origin, params) : Promise.resolve({ action: 'decline' as const }),
    },
    secrets,
    ...(options.openSignInPage ? { openSignInPage: options.openSignInPage } : {}),
    // Shut until the approval engine is built: no call can reach a server before the deny rules can be checked.
    door: (call) => {
      if (!late.door)
        throw new WorkbenchError(
          'unavailable',
          'AI Workbench is not ready: the deny rules cannot be checked yet, so the tool did not run.',
        );
      late.door(call);
    },
    ...(managed?.policy.oauth ? { oauthPolicy: () => managed.policy.oauth ?? {} } : {}),
  });
  // The approval engine looks tools up in the MCP host's registry.
  const tools: ToolCatalog = options.tools ?? {
    find: (serverName, toolName) =>
      mcp.tools().find((tool) => tool.serverName === serverName && tool.name === toolName),
  };
  // The organisation's defaults stand in for a missing section; its locked sinks always ship, whatever the person's
  // settings say, and a sink of the person's with the same id gives way (docs/user/organisation-policy.md).
  const managedShipping = managed?.policy.defaults.auditShipping
    ? AuditShippingSettingsSchema.parse(managed.policy.defaults.auditShipping)
    : AuditShippingSettingsSchema.parse({});
  const lockedSinks = (managed?.policy.locked.auditShipping?.sinks ?? []).map((config) => ({
    config: { ...config, enabled: true },
    origin: 'managed' as const,
  }));
  const shippingSettings = createShippingSettings({ settings, secrets, defaults: managedShipping, lockedSinks });
  const auditShipping = createAuditShipper({
    db,
    targets: () => shippingSettings.targets(),
    onDidChangeTargets: (listener) => shippingSettings.onDidChange(listener),
    workerFile: builtAssets().auditShipWorker,
    version: options.version,
    onError: options.onListenerError,
  });
  const signingKey = (create: boolean): CheckpointKey | null => checkpointKey(secrets, { create });
  const sqliteAudit = createSqliteAuditLog({
    db,
    dataDir: options.dataDir,
    workerFile: builtAssets().auditWorker,
    // A host that cannot read the key (the app's keychain, from the CLI) checks checkpoints only with --public-key.
    checkpointPublicKey: () => {
      try {
        const key = signingKey(false);
        return key ? publicKeyFrom(key.publicKeyPem) : null;
      } catch {
        return null;
      }
    },
  });
  const checkpointer = createCheckpointer({
    db,
    audit: sqliteAudit,
    settings: { get: () => shippingSettings.checkpoints(), set: (change) => shippingSettings.setCheckpoints(change) },
    key: signingKey,
    onDidCommit: () => auditShipping.wake(),
    onError: options.onListenerError,
  });
  checkpointer.start();
  // Every committed row wakes the shipper, which ships it later, in a batch, off the decision path, and the
  // checkpointer, which signs the head when one is due.
  const audit = wakingAuditLog(sqliteAudit, () => {
    auditShipping.wake();
    checkpointer.wake();
  });
  const auditDownloads = createAuditExportDownloads({ audit });
  const sandboxProfiles = createSandboxProfileService({
    config: mcpServers,
    audit,
    limits: managed?.policy.sandbox,
    dataDir: options.dataDir,
    actor: options.host === 'cli' ? 'cli' : 'user',
  });
  late.sandboxProfiles = sandboxProfiles;
  const sandboxWidenings = createSandboxWideningService({ db, audit, profiles: sandboxProfiles, events });
  const auditReceived = createReceivedVerifier({ db, audit });
  const auditExports = createAuditExportFolder({ audit, dataDir: options.dataDir });
  let approvals: ApprovalServices;
  const auditInsights = createAuditInsights(
    db,
    () => approvals.policy,
    tools,
    () => mcpServers.facts(),
  );
  // `late` is filled after the approval engine is built; a timer cannot fire before this function returns.
  try {
    // Before anything is decided: a policy file that changed since the last start is a policy row (docs/user/audit-log.md).
    recordManagedPolicySeen(db, audit, managed);
    approvals = createApprovalServices({
      db,
      settings,
      events,
      chatChanges: chats.onDidChange,
      chats,
      managed,
      actor: options.host === 'cli' ? 'cli' : 'user',
      holder: holderKind(options.host, options.command),
      audit: options.audit ?? audit,
      tools,
      // A server's trust is its `trusted` flag in the MCP settings, and only there.
      trustedServers: {
        names: () =>
          mcpServers
            .list()
            .filter((server) => server.trusted)
            .map((server) => server.name),
        // What each server runs: settings, grants and rules are bound to it (docs/user/approvals.md, "A server's identity").
        facts: () => mcpServers.facts(),
        onDidChange: (listener) => mcpServers.onDidChange(() => listener()),
      },
      onError: options.onListenerError,
      // A call reached its timeout: the coordinator resolves it and goes on with the exchange.
      onApprovalsDue: (chatId) => late.coordinator?.handle({ kind: 'timeout', chatId }),
    });
  } catch (error) {
    db.close();
    throw error;
  }
  late.door = callDoor(approvals.gate);
  mcpServers.onDidChangeServerName((change) => {
    const dropped = approvals.followServer(change);
    if (change.kind === 'added' && dropped) {
      events.emit('mcp.onDidChangeServer', {
        kind: 'notice',
        name: change.name,
        message: freedNameNotice(change.name),
      });
    }
  });
  const messages = createMessageStore(db);
  const chatSettings = openChatSettings(settings);
  const onError = options.onListenerError ?? (() => {});
  // Calls running as MCP tasks, followed again when their server is back (after a restart of the app or the server).
  const followedTasks = createFollowedTasks({
    db,
    messages,
    audit: options.audit ?? audit,
    mcp,
    identityOf: (name) => mcpServers.facts().get(name)?.identity.key,
    announce: (message) =>
      events.emit('chat.onDidStream', {
        kind: 'message',
        chatId: message.chatId,
        exchangeId: message.exchangeId,
        message: structuredClone(message),
      }),
    onError,
    holder: holderKind(options.host, options.command),
  });
  events.subscribe((event, payload) => {
    if (event !== 'mcp.onDidChangeServer') return;
    const change = payload as EventPayload<'mcp.onDidChangeServer'>;
    if ((change.kind === 'updated' && change.server.status.state === 'ready') || change.kind === 'removed')
      followedTasks.resume();
  });
  const loop = createToolLoop({
    followed: followedTasks,
    messages,
    provider: (id) => providers.provider(id),
    gate: approvals.gate,
    pending: approvals.pending,
    tools: mcp,
    audit: options.audit ?? audit,
    maxToolRounds: () => chatSettings.get().maxToolRounds,
    identityOf: (name) => mcpServers.facts().get(name)?.identity.key,
    now: Date.now,
    onError,
  });
  const serverRequests = createServerRequests({
    audit,
    waits: approvals.pending.serverRequests,
    onError,
    policy: () => approvals.policy.compiled(),
    modelFor: (chatId) => {
      const chat = chatId === null ? undefined : chats.get(chatId);
      if (chat?.providerId && chat.model) return { providerId: chat.providerId, model: chat.model };
      const first = providers.list()[0];
      return first?.defaultModel ? { providerId: first.id, model: first.defaultModel } : null;
    },
    provider: (id) => providers.provider(id),
  });
  const conversations = createExchangeCoordinator({
    chats,
    messages,
    loop,
    pending: approvals.pending,
    events,
    onError,
    serverRequests,
  });
  late.coordinator = conversations;
  const appCalls = createAppCalls({
    decide: (chatId, call, tool) => approvals.gate.decideForApp(chatId, call, tool),
    waits: approvals.pending.serverRequests,
    audit: options.audit ?? audit,
    viewCall: (chatId, viewCallId) => findViewCall(messages, chatId, viewCallId),
    identityOf: (name) => mcpServers.facts().get(name)?.identity.key,
    mcp,
    onError,
  });
  /** An answer applied here through the card's path, with where it was given when not on the card. */
  const decideHere = (
    id: string,
    decision: ServerRequestDecision,
    origin?: DecisionOrigin,
  ): { request: McpServerRequestView | null } =>
    appCalls.holds(id)
      ? appCalls.decide(id, decision, origin)
      : conversations.decideServerRequest(id, decision, origin);
  // Answers given in another process to what waits here (the CLI, another window): the same path as a click.
  const stopAnswers = approvals.pending.serverRequests.onAnswer((id, decision, origin) => {
    decideHere(id, decision, origin);
  });
  const appViewCache = createAppViewCache(onError);
  // What is cached of a server's views goes when it says a resource changed, its tools change or it leaves `ready`.
  events.subscribe((event, payload) => {
    if (event === 'mcp.onDidUpdateResource') {
      const { serverName, uri } = payload as EventPayload<'mcp.onDidUpdateResource'>;
      appViewCache.drop(serverName, uri);
    } else if (event === 'mcp.onDidChangeTools')
      appViewCache.drop((payload as EventPayload<'mcp.onDidChangeTools'>).serverName);
    else if (event === 'mcp.onDidChangeServer') {
      const change = payload as EventPayload<'mcp.onDidChangeServer'>;
      if (change.kind === 'removed') appViewCache.drop(change.name);
      else if (change.kind === 'updated' && change.server.status.state !== 'ready')
        appViewCache.drop(change.server.name);
    }
  });
  const appViews = createAppViews({
    cache: appViewCache,
    mcp,
    pins: createAppViewPins(db),
    identityOf: (name) => mcpServers.facts().get(name)?.identity.key ?? `unknown:${name}`,
    audit,
    actor: options.host === 'cli' ? 'cli' : 'user',
  });
  const settingsWatch = watchSettings(settings);
  settingsWatch.onDidReload((reload) => events.emit('settings.onDidReload', reload));
  const sqliteVersion = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  return {
    dataDir: options.dataDir,
    dataFolderRepair,
    databaseFile,
    events,
    settings,
    settingsWatch,
    secrets,
    chats,
    conversations,
    chatSettings,
    providers,
    approvals,
    mcpServers,
    mcp,
    sandboxProfiles,
    sandboxWidenings,
    audit,
    auditShipping,
    shippingSettings,
    checkpointer,
    auditReceived,
    auditDownloads,
    auditExports,
    auditInsights,
    appCalls,
    appFrameSlots: createAppFrameSlots(),
    appViews,
    async decideServerRequest(id, decision) {
      const waits = approvals.pending.serverRequests;
      if (appCalls.holds(id) || waits.heldHere(id)) return decideHere(id, decision);
      // Held by another process (or not answerable any more, which `relay` says by name).
      await waits.relay(id, decision);
      return { request: null };
    },
    appInfo: () => ({
      name: APP_NAME,
      version: options.version,
      host: options.host,
      platform: process.platform,
      dataDir: options.dataDir,
      versions: { node: process.versions.node, sqlite: sqliteVersion, ...options.versions },
    }),
    close: () => {
      followedTasks.close();
      settingsWatch.stop();
      sandboxProfiles.flushBlocks();
      stopAnswers();
      appCalls.dispose();
      void conversations.dispose();
      void auditDownloads.dispose();
      void auditShipping.stop();
      checkpointer.stop();
      approvals.dispose();
      try {
        // The last check of the log's protections: the rows of this session came in with them in place.
        if (db.open) audit.checkProtections();
      } finally {
        db.close();
      }
    },
  };
}

/** What the person is told when a server takes a name that still held another server's settings or grants. */
export function freedNameNotice(name: string): string {
  return `"${name}" was the name of another server: the approvals, rules and chat grants made for it were not given to this one. It starts with nothing; every call asks until you decide otherwise.`;
}
