import {
  SandboxChangeInputSchema,
  SandboxUnconfinedInputSchema,
  SandboxViewSchema,
  SandboxWideningRequestInputSchema,
} from './sandbox';
import {
  AppCallToolInputSchema,
  AppOpenLinkInputSchema,
  AppOpenLinkOutputSchema,
  AppFrameSlotInputSchema,
  AppRefusalInputSchema,
  AppReadResourceInputSchema,
  McpAppViewInputSchema,
  McpAppViewSchema,
  McpAppViewAcceptInputSchema,
} from './mcp-apps';
import { z } from './zod';
import { McpToolResultSchema } from './mcp-result';
import { AppChatRequestSchema, AppInfoSchema, SettingsProblemSchema, SettingsReloadSchema } from './app';
import type { EventName, MethodName } from './contract-names';
import {
  ApprovalsChangeSchema,
  ApprovalsPendingInputSchema,
  RememberOptionsInputSchema,
  RememberOptionsSchema,
  ApprovalsPendingOutputSchema,
  ChatApprovalModeInputSchema,
  ChatApprovalModeOutputSchema,
  ChatApprovalModeSetInputSchema,
  GrantRevokeInputSchema,
  GrantRevokeOutputSchema,
  GrantsChangeSchema,
  GrantsListInputSchema,
  GrantsListOutputSchema,
  PolicyExplainInputSchema,
  PolicyExplanationSchema,
  PolicyUpdateSchema,
  PolicyViewSchema,
} from './approval';
import {
  AuditExportInputSchema,
  AuditExportPrepareInputSchema,
  AuditExportPrepareOutputSchema,
  AuditExportReadInputSchema,
  AuditExportReadOutputSchema,
  AuditExportResultSchema,
  AuditPageSchema,
  AuditProgressSchema,
  AuditQueryInputSchema,
  AuditVerifyInputSchema,
  AuditVerifyResultSchema,
} from './audit';
import {
  AuditCheckpointsSetInputSchema,
  AuditCheckpointsViewSchema,
  AuditShippingSinksSchema,
  AuditShippingStatusSchema,
  AuditSinkRemoveInputSchema,
  AuditSinkSaveInputSchema,
  AuditVerifyAgainstInputSchema,
  AuditVerifyAgainstResultSchema,
} from './audit-shipping';
import {
  AuditAcceptSuggestionInputSchema,
  AuditAcceptSuggestionOutputSchema,
  AuditStatsInputSchema,
  AuditStatsSchema,
  AuditSuggestionsInputSchema,
  AuditSuggestionsSchema,
} from './audit-stats';
import {
  ChatChangeSchema,
  ChatConfigureInputSchema,
  ChatCreateInputSchema,
  ChatDeleteOutputSchema,
  ChatListOutputSchema,
  ChatRefInputSchema,
  ChatRenameInputSchema,
  ChatSchema,
} from './chat';
import {
  ProviderAddInputSchema,
  ProviderInfoSchema,
  ProviderModelsOutputSchema,
  ProviderProbeInputSchema,
  ProviderRefInputSchema,
  ProviderRemoveOutputSchema,
  ProvidersChangeSchema,
  ProvidersListOutputSchema,
  ProviderTestOutputSchema,
  ProviderUpdateInputSchema,
} from './llm';
import {
  McpAddInputSchema,
  McpEditInputSchema,
  McpImportInputSchema,
  McpImportOutputSchema,
  McpSignInOutputSchema,
  McpAwaitSignInOutputSchema,
  McpImportPreviewInputSchema,
  McpImportPreviewSchema,
  McpListOutputSchema,
  McpLogsInputSchema,
  McpLogsOutputSchema,
  McpReadResourceInputSchema,
  McpReadResourceOutputSchema,
  McpPromptsInputSchema,
  McpResourceSubscriptionInputSchema,
  McpResourceSubscriptionOutputSchema,
  McpPromptsOutputSchema,
  McpGetPromptInputSchema,
  McpGetPromptOutputSchema,
  McpCompleteInputSchema,
  McpCompleteOutputSchema,
  McpRemoveOutputSchema,
  McpResourcesInputSchema,
  McpResourcesOutputSchema,
  McpResourceUpdatedSchema,
  McpServerChangeSchema,
  McpServerRefInputSchema,
  McpOrganisationIdpInputSchema,
  McpOrganisationIdpOutputSchema,
  McpServerViewSchema,
  McpSetEnabledInputSchema,
  McpToolsChangeSchema,
  McpToolsInputSchema,
  McpToolsOutputSchema,
} from './mcp';
import {
  ChatMessagesInputSchema,
  ChatMessagesOutputSchema,
  ChatSendInputSchema,
  ChatSendOutputSchema,
  ChatStopInputSchema,
  ChatStopOutputSchema,
  ChatCancelTaskInputSchema,
  ChatCancelTaskOutputSchema,
  ChatStreamEventSchema,
} from './messages';
import {
  SandboxWideningRequestViewSchema,
  ServerRequestDecideInputSchema,
  ServerRequestDecideOutputSchema,
  ServerRequestsChangeSchema,
  ServerRequestsListInputSchema,
  ServerRequestsListOutputSchema,
} from './server-request-views';

/** A method takes no input: callers may omit it or pass `{}`. */
const NoInputSchema = z.strictObject({}).optional();

interface MethodSpec {
  readonly input: z.ZodType;
  readonly output: z.ZodType;
}
interface EventSpec {
  readonly payload: z.ZodType;
}

/**
 * Every request the renderer (or any other front end) can make of the main process.
 * Names are `namespace.verb`; the namespace becomes an object on `window.workbench`. A new method's name goes
 * into contract-names.ts too: the `satisfies` below fails until both list the same names.
 */
export const methods = {
  'app.info': { input: NoInputSchema, output: AppInfoSchema },
  'settings.problem': { input: NoInputSchema, output: SettingsProblemSchema },
  'chat.create': { input: ChatCreateInputSchema, output: ChatSchema },
  'chat.list': { input: NoInputSchema, output: ChatListOutputSchema },
  'chat.get': { input: ChatRefInputSchema, output: ChatSchema },
  'chat.rename': { input: ChatRenameInputSchema, output: ChatSchema },
  'chat.delete': { input: ChatRefInputSchema, output: ChatDeleteOutputSchema },
  /** Provider, model and system prompt of a chat. */
  'chat.configure': { input: ChatConfigureInputSchema, output: ChatSchema },
  /** A chat's messages (the newest `limit`, or a page before `beforeSeq`) and what it is doing now. */
  'chat.messages': { input: ChatMessagesInputSchema, output: ChatMessagesOutputSchema },
  /** Seed 000's user or approval message; answers once it is stored, the exchange then streams as `chat.onDidStream`. */
  'chat.send': { input: ChatSendInputSchema, output: ChatSendOutputSchema },
  /** The stop button: cancels the stream, in-flight tool calls and waiting approvals of the chat's exchange. */
  'chat.stop': { input: ChatStopInputSchema, output: ChatStopOutputSchema },
  /** Sends `tasks/cancel` for a tool call running as an MCP task. */
  'chat.cancelTask': { input: ChatCancelTaskInputSchema, output: ChatCancelTaskOutputSchema },
  'providers.list': { input: NoInputSchema, output: ProvidersListOutputSchema },
  'providers.add': { input: ProviderAddInputSchema, output: ProviderInfoSchema },
  'providers.update': { input: ProviderUpdateInputSchema, output: ProviderInfoSchema },
  'providers.remove': { input: ProviderRefInputSchema, output: ProviderRemoveOutputSchema },
  /** "Test connection": fetches the model list; answers ok or the error, never throws for a provider failure. */
  'providers.test': { input: ProviderRefInputSchema, output: ProviderTestOutputSchema },
  'providers.models': { input: ProviderRefInputSchema, output: ProviderModelsOutputSchema },
  /** The providers page's "Test" of a local server it offers, before it is added: loopback addresses only. */
  'providers.probeLocal': { input: ProviderProbeInputSchema, output: ProviderTestOutputSchema },
  'policy.get': { input: NoInputSchema, output: PolicyViewSchema },
  'policy.update': { input: PolicyUpdateSchema, output: PolicyViewSchema },
  'policy.explain': { input: PolicyExplainInputSchema, output: PolicyExplanationSchema },
  'grants.list': { input: GrantsListInputSchema, output: GrantsListOutputSchema },
  'grants.revoke': { input: GrantRevokeInputSchema, output: GrantRevokeOutputSchema },
  'approvals.pending': { input: ApprovalsPendingInputSchema, output: ApprovalsPendingOutputSchema },
  'approvals.getChatMode': { input: ChatApprovalModeInputSchema, output: ChatApprovalModeOutputSchema },
  'approvals.setChatMode': { input: ChatApprovalModeSetInputSchema, output: ChatApprovalModeOutputSchema },
  /** What servers ask of the model or the person and waits (sampling, elicitation): one chat's, the chat-less (null), or all. */
  'serverRequests.list': { input: ServerRequestsListInputSchema, output: ServerRequestsListOutputSchema },
  /** The person's answer to one server request (docs/user/server-requests.md). */
  'serverRequests.decide': { input: ServerRequestDecideInputSchema, output: ServerRequestDecideOutputSchema },
  /** A request to widen a server's sandbox by one grant, waiting like the others until allowed or denied (docs/user/sandbox.md#widening). */
  'serverRequests.requestWidening': {
    input: SandboxWideningRequestInputSchema,
    output: SandboxWideningRequestViewSchema,
  },
  /** The card's "More…" menu: which remember actions a waiting call offers, and the rule suggested from its arguments. */
  'approvals.rememberOptions': { input: RememberOptionsInputSchema, output: RememberOptionsSchema },
  'mcp.list': { input: NoInputSchema, output: McpListOutputSchema },
  'mcp.add': { input: McpAddInputSchema, output: McpServerViewSchema },
  'mcp.edit': { input: McpEditInputSchema, output: McpServerViewSchema },
  'mcp.remove': { input: McpServerRefInputSchema, output: McpRemoveOutputSchema },
  'mcp.setEnabled': { input: McpSetEnabledInputSchema, output: McpServerViewSchema },
  'mcp.restart': { input: McpServerRefInputSchema, output: McpServerViewSchema },
  'mcp.logs': { input: McpLogsInputSchema, output: McpLogsOutputSchema },
  'mcp.tools': { input: McpToolsInputSchema, output: McpToolsOutputSchema },
  /** A server's resources and templates (docs/user/mcp-servers.md#resources). */
  'mcp.resources': { input: McpResourcesInputSchema, output: McpResourcesOutputSchema },
  /** One resource's contents: a request the person makes, never the model. */
  'mcp.readResource': { input: McpReadResourceInputSchema, output: McpReadResourceOutputSchema },
  /** The view a tool declares (`_meta.ui.resourceUri`), checked and with its CSP domains and permissions (docs/user/mcp-apps.md). */
  'mcp.appView': { input: McpAppViewInputSchema, output: McpAppViewSchema },
  /** Accepts a changed view for the server's identity (docs/user/mcp-apps.md#pinned-views); returns it, pinned. */
  'mcp.acceptAppView': { input: McpAppViewAcceptInputSchema, output: McpAppViewSchema },
  // What a tool's view asks (docs/user/mcp-apps.md#what-a-view-may-ask): decided like the model's calls.
  'apps.callTool': { input: AppCallToolInputSchema, output: McpToolResultSchema },
  'apps.readResource': { input: AppReadResourceInputSchema, output: McpReadResourceOutputSchema },
  'apps.openLink': { input: AppOpenLinkInputSchema, output: AppOpenLinkOutputSchema },
  'apps.recordRefusal': { input: AppRefusalInputSchema, output: z.object({}) },
  /** Which view a pool proxy frame now serves, for its frame's reports (docs/user/mcp-apps.md#in-the-audit-log). */
  'apps.bindFrameSlot': { input: AppFrameSlotInputSchema, output: z.object({}) },
  /** Changes of a resource attached to the next message arrive as mcp.onDidUpdateResource while subscribed. */
  'mcp.subscribeResource': { input: McpResourceSubscriptionInputSchema, output: McpResourceSubscriptionOutputSchema },
  'mcp.unsubscribeResource': { input: McpResourceSubscriptionInputSchema, output: McpResourceSubscriptionOutputSchema },
  /** Servers' prompts, one prompt's messages, suggestions for an argument: slash commands the person types (docs/user/mcp-servers.md#prompts). */
  'mcp.prompts': { input: McpPromptsInputSchema, output: McpPromptsOutputSchema },
  'mcp.getPrompt': { input: McpGetPromptInputSchema, output: McpGetPromptOutputSchema },
  'mcp.complete': { input: McpCompleteInputSchema, output: McpCompleteOutputSchema },
  'mcp.importPreview': { input: McpImportPreviewInputSchema, output: McpImportPreviewSchema },
  'mcp.import': { input: McpImportInputSchema, output: McpImportOutputSchema },
  'mcp.signIn': { input: McpServerRefInputSchema, output: McpSignInOutputSchema },
  'mcp.awaitSignIn': { input: McpServerRefInputSchema, output: McpAwaitSignInOutputSchema },
  'mcp.signOut': { input: McpServerRefInputSchema, output: McpServerViewSchema },
  /** A server's sandbox profile, widened or narrowed by one grant (docs/user/sandbox.md). */
  'mcp.sandbox': { input: McpServerRefInputSchema, output: SandboxViewSchema },
  'mcp.sandboxWiden': { input: SandboxChangeInputSchema, output: SandboxViewSchema },
  'mcp.sandboxNarrow': { input: SandboxChangeInputSchema, output: SandboxViewSchema },
  /** Let one server run unconfined (Not contained), or contain it again; audited (docs/user/sandbox.md#unconfined). */
  'mcp.sandboxUnconfined': { input: SandboxUnconfinedInputSchema, output: SandboxViewSchema },
  'mcp.signInAsClient': { input: McpServerRefInputSchema, output: McpServerViewSchema },
  /** The organisation's identity provider a server added at this URL would sign in through (docs/user/organisation-policy.md#oauth). */
  'mcp.organisationIdp': { input: McpOrganisationIdpInputSchema, output: McpOrganisationIdpOutputSchema },
  'audit.query': { input: AuditQueryInputSchema, output: AuditPageSchema },
  'audit.export': { input: AuditExportInputSchema, output: AuditExportResultSchema },
  'audit.verify': { input: AuditVerifyInputSchema, output: AuditVerifyResultSchema },
  /** Export as a download: prepares the file in main, then the renderer reads it in chunks and saves it where the person picks. */
  'audit.exportPrepare': { input: AuditExportPrepareInputSchema, output: AuditExportPrepareOutputSchema },
  'audit.exportRead': { input: AuditExportReadInputSchema, output: AuditExportReadOutputSchema },
  /** Each audit sink's lag (rows and time) and last error. */
  'audit.shippingStatus': { input: NoInputSchema, output: AuditShippingStatusSchema },
  /** The person's audit sinks (OTLP header names only, never their values). */
  'audit.shippingSinks': { input: NoInputSchema, output: AuditShippingSinksSchema },
  /** Adds a sink, or replaces the one called `previousId`. */
  'audit.saveShippingSink': { input: AuditSinkSaveInputSchema, output: AuditShippingSinksSchema },
  'audit.removeShippingSink': { input: AuditSinkRemoveInputSchema, output: AuditShippingSinksSchema },
  /** Signed checkpoints: the setting and the public key verifiers need. */
  'audit.checkpoints': { input: NoInputSchema, output: AuditCheckpointsViewSchema },
  'audit.setCheckpoints': { input: AuditCheckpointsSetInputSchema, output: AuditCheckpointsViewSchema },
  /** The local log checked against a file of the rows a collector received (JSONL or rsyslog). */
  'audit.verifyAgainst': { input: AuditVerifyAgainstInputSchema, output: AuditVerifyAgainstResultSchema },
  /** Approval insights: a period's figures, for the Insights page and `workbench audit stats` (docs/user/insights.md). */
  'audit.stats': { input: AuditStatsInputSchema, output: AuditStatsSchema },
  /** Suggestions from the evidence of the last days. */
  'audit.suggestions': { input: AuditSuggestionsInputSchema.optional(), output: AuditSuggestionsSchema },
  /** Accepts an allow suggestion: an audited policy change, undone from Settings › Approvals. */
  'audit.acceptSuggestion': { input: AuditAcceptSuggestionInputSchema, output: AuditAcceptSuggestionOutputSchema },
} as const satisfies Record<MethodName, MethodSpec>;

/**
 * Every event the main process pushes. Names are `namespace.onDidX`, exposed as
 * `window.workbench.namespace.onDidX(listener)` returning an unsubscribe function.
 */
export const events = {
  /** The desktop app asks the page to open a chat (and focus a tool call's card). */
  'app.onDidRequestChat': { payload: AppChatRequestSchema },
  'chat.onDidChange': { payload: ChatChangeSchema },
  'chat.onDidStream': { payload: ChatStreamEventSchema },
  'providers.onDidChange': { payload: ProvidersChangeSchema },
  'policy.onDidChange': { payload: PolicyViewSchema },
  'grants.onDidChange': { payload: GrantsChangeSchema },
  'approvals.onDidChange': { payload: ApprovalsChangeSchema },
  'serverRequests.onDidChange': { payload: ServerRequestsChangeSchema },
  'mcp.onDidChangeServer': { payload: McpServerChangeSchema },
  'mcp.onDidChangeTools': { payload: McpToolsChangeSchema },
  /** A resource attached to a message changed on its server (a subscription; docs/user/mcp-servers.md#resources). */
  'mcp.onDidUpdateResource': { payload: McpResourceUpdatedSchema },
  'audit.onDidProgress': { payload: AuditProgressSchema },
  /** settings.json was read again after a change made outside the app, or could not be used (the last good settings stay). */
  'settings.onDidReload': { payload: SettingsReloadSchema },
} as const satisfies Record<EventName, EventSpec>;

export type Methods = typeof methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
/** The input after validation (defaults applied, strings trimmed): what handlers receive. */
export type MethodParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;

export type Events = typeof events;
export type EventPayload<E extends EventName> = z.output<Events[E]['payload']>;

export { eventNames, isEventName, isMethodName, methodNames, type EventName, type MethodName } from './contract-names';
