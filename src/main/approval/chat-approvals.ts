import type {
  ArgumentMatcher,
  ChatApprovalMode,
  ChatGrant,
  PendingApproval,
  RememberOptions,
} from '../../shared/approval';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { KnownChats } from './approval-gate';
import type { ChatApprovalStore } from './chat-approval-store';
import type { PendingApprovals } from './pending-approvals';
import { rememberOffers, type RememberContext } from './policy/remember';
import { chatModeChange, revokeChange } from './policy-changes';
import type { PolicyRecording } from './policy-service';

/** What a person sees and changes about approvals in one chat. Every method throws `not_found` for an unknown chat. */
export interface ChatApprovals {
  mode(chatId: string): ChatApprovalMode;
  setMode(chatId: string, mode: ChatApprovalMode): ChatApprovalMode;
  /** One chat's grants, or every chat's (for the settings page) when no chat is named. */
  grants(chatId?: string): ChatGrant[];
  /** Throws `not_found` when the chat has no grant for that tool. */
  revoke(chatId: string, serverName: string, toolName: string): ChatGrant;
  pending(chatId: string): PendingApproval[];
  /**
   * What the card's "More…" menu offers for a call waiting in this chat (docs/user/approvals.md "Remember from the
   * card"), for the arguments the card shows and the rule the person is editing. Throws `not_found` when the call does
   * not wait here.
   */
  rememberOptions(input: {
    chatId: string;
    toolCallId: string;
    args?: Record<string, unknown> | undefined;
    rule?: ArgumentMatcher[] | undefined;
  }): RememberOptions;
}

export interface ChatApprovalsDependencies {
  /** Where each change of a chat's mode and each revocation is recorded, and as whom (docs/user/audit-log.md). */
  recording: PolicyRecording;
  chats: KnownChats;
  store: ChatApprovalStore;
  pending: Pick<PendingApprovals, 'list'>;
  events: EventHub;
  /** The policy in force now, for the remember offers. */
  rememberContext: () => RememberContext;
}

export function createChatApprovals({
  chats,
  store,
  pending,
  events,
  rememberContext,
  recording,
}: ChatApprovalsDependencies): ChatApprovals {
  return {
    mode(chatId) {
      chats.get(chatId);
      return store.mode(chatId);
    },
    setMode(chatId, mode) {
      chats.get(chatId);
      // Recorded before it is made: a change the audit log cannot record is not made.
      const change = chatModeChange(chatId, store.mode(chatId), mode, recording.actor);
      if (change) recording.audit.recordPolicyChange(change);
      store.setMode(chatId, mode);
      events.emit('approvals.onDidChange', { kind: 'chat-mode', chatId, mode });
      return mode;
    },
    grants(chatId) {
      if (chatId === undefined) return store.allGrants();
      chats.get(chatId);
      return store.grantsOf(chatId);
    },
    revoke(chatId, serverName, toolName) {
      chats.get(chatId);
      const grant = store.revoke(chatId, serverName, toolName);
      if (!grant) {
        throw new WorkbenchError('not_found', `This chat has no 'Allow for this chat' for ${serverName}.${toolName}.`, {
          chatId,
          serverName,
          toolName,
        });
      }
      // Recorded once the grant is gone (taking a grant away is never the unsafe direction).
      recording.audit.recordPolicyChange(revokeChange(grant, recording.actor));
      events.emit('grants.onDidChange', { kind: 'revoked', grant });
      return grant;
    },
    pending(chatId) {
      chats.get(chatId);
      return pending.list(chatId);
    },
    rememberOptions({ chatId, toolCallId, args, rule }) {
      chats.get(chatId);
      const waiting = pending.list(chatId).find((approval) => approval.request.toolCallId === toolCallId);
      if (!waiting)
        throw new WorkbenchError('not_found', `Tool call '${toolCallId}' does not wait for a decision in this chat.`, {
          chatId,
          toolCallId,
        });
      const call = {
        serverName: waiting.request.serverName,
        toolName: waiting.request.toolName,
        args: args ?? waiting.request.args,
      };
      return rememberOffers(call, rememberContext(), rule);
    },
  };
}
