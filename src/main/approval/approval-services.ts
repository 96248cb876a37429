import type { AuditRecorder, PolicyChangeActor } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { ChatChange } from '../../shared/chat';
import type { Subscribe } from '../emitter';
import type { EventHub } from '../event-hub';
import type { SettingsStore } from '../settings/settings-store';
import type { Database } from '../storage/database';
import { createApprovalGate, type ApprovalGate, type KnownChats } from './approval-gate';
import { createArgumentsValidator } from './arguments-validator';
import { createChatApprovalStore } from './chat-approval-store';
import { createChatApprovals, type ChatApprovals } from './chat-approvals';
import { denyCheck } from './policy/decision-pipeline';
import { checkRemember, type RememberContext } from './policy/remember';
import type { LoadedManagedPolicy } from './managed-policy';
import { createPendingApprovals, type PendingApprovals } from './pending-approvals';
import { createAnswerInbox } from './answer-inbox';
import type { HolderKind } from './request-holders';
import { createPendingStore } from './pending-store';
import { createPolicyService, openApprovalSettings, type PolicyService, type ServerNameFollow } from './policy-service';
import { EMPTY_TOOL_CATALOG, type ToolCatalog } from './tool-catalog';
import { NO_TRUSTED_SERVERS, type TrustedServers } from './trusted-servers';

/** The approval engine: the policy, the gate the tool loop asks, each chat's settings and grants, and the calls that wait. */
export interface ApprovalServices {
  readonly policy: PolicyService;
  readonly gate: ApprovalGate;
  readonly chats: ChatApprovals;
  readonly pending: PendingApprovals;
  /**
   * A server was renamed, removed or added: its settings, rules and chat grants follow a rename and go with a removal
   * (docs/user/approvals.md, "A server's identity"). Returns whether an added server's name held settings or grants
   * left by another server, which were dropped: the person is told.
   */
  followServer(change: ServerNameFollow): boolean;
  dispose(): void;
}

export interface ApprovalServicesDependencies {
  db: Database;
  settings: SettingsStore;
  events: EventHub;
  chats: KnownChats;
  managed: LoadedManagedPolicy | null;
  /** Who changes the policy in this process: `user` (the app, browser mode) or `cli`; its policy rows say so. */
  actor: PolicyChangeActor;
  /** Without one, recording fails closed: nothing that needs a record can be decided, so nothing runs. */
  audit?: AuditRecorder | undefined;
  tools?: ToolCatalog | undefined;
  /** The servers marked trusted in the MCP settings; none without it. */
  trustedServers?: TrustedServers | undefined;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** A waiting call reached its timeout (the exchange coordinator's `timeout` event). */
  onApprovalsDue: (chatId: string) => void;
  /** The chats' typed changes (`ChatService.onDidChange`). */
  chatChanges?: Subscribe<ChatChange> | undefined;
  /** What this process is, shown by other processes beside the requests it holds (./request-holders.ts). */
  holder?: HolderKind | undefined;
}

/** Until the audit log is wired: every record is refused, so no decision is applied without one. */
const UNAVAILABLE_AUDIT_LOG: AuditRecorder = {
  recordDecision() {
    throw new WorkbenchError(
      'unavailable',
      'The audit log is not available, so no decision can be recorded and no tool runs.',
    );
  },
  recordDecisionsWith() {
    throw new WorkbenchError(
      'unavailable',
      'The audit log is not available, so no decision can be recorded and no tool runs.',
    );
  },
  recordToolResult() {
    throw new WorkbenchError('unavailable', 'The audit log is not available, so no tool result can be recorded.');
  },
  recordTask() {
    throw new WorkbenchError('unavailable', 'The audit log is not available, so no task can be recorded.');
  },
  recordPolicyChange() {
    throw new WorkbenchError(
      'unavailable',
      'The audit log is not available, so no change of the approval policy can be recorded or made.',
    );
  },
};

/** Opens the `approvals` settings section (a bad one throws `SettingsError` naming the field) and builds the engine. */
export function createApprovalServices(dependencies: ApprovalServicesDependencies): ApprovalServices {
  const { db, events, chats } = dependencies;
  const audit = dependencies.audit ?? UNAVAILABLE_AUDIT_LOG;
  const section = openApprovalSettings(dependencies.settings);
  const recording = { audit, actor: dependencies.actor, onError: dependencies.onError };
  const policy = createPolicyService(
    section,
    dependencies.managed,
    events,
    dependencies.trustedServers ?? NO_TRUSTED_SERVERS,
    recording,
  );
  const store = createChatApprovalStore(db);
  const rememberContext = (): RememberContext => {
    const compiled = policy.compiled();
    return { policy: compiled.policy, managed: compiled.managed, trustedServers: compiled.trustedServers };
  };
  const pending = createPendingApprovals({
    store: createPendingStore(db),
    inbox: createAnswerInbox(db, dependencies.now ?? Date.now),
    holder: dependencies.holder,
    chatStore: store,
    audit,
    events,
    validator: createArgumentsValidator(),
    actor: dependencies.actor,
    denyCheck: (call) => denyCheck(call, policy.compiled()),
    remember: {
      check: (call, action) => checkRemember(call, action, rememberContext()),
      apply: (update) => void policy.update(update),
    },
    timeoutSeconds: () => policy.compiled().policy.timeoutSeconds,
    now: dependencies.now,
    onError: dependencies.onError,
    onDue: dependencies.onApprovalsDue,
    chatChanges: dependencies.chatChanges,
  });
  return {
    policy,
    gate: createApprovalGate({ policy, store, chats, audit, tools: dependencies.tools ?? EMPTY_TOOL_CATALOG }),
    chats: createChatApprovals({ chats, store, pending, events, rememberContext, recording }),
    pending,
    followServer(change) {
      if (change.kind === 'renamed') {
        for (const grant of store.renameServer(change.from, change.to))
          events.emit('grants.onDidChange', { kind: 'granted', grant });
        policy.followServer(change);
        return false;
      }
      const grants = store.dropServer(change.name);
      for (const grant of grants) events.emit('grants.onDidChange', { kind: 'revoked', grant });
      const settings = policy.followServer(change);
      return grants.length > 0 || settings;
    },
    dispose: () => pending.dispose(),
  };
}
