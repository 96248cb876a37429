import type { ApprovalsChange, PendingApproval } from '../../shared/approval';
import type { ChatChange } from '../../shared/chat';
import type { Subscribe } from '../emitter';

/** What changed in the set of calls waiting for a person. */
export interface ApprovalTrackerChange {
  /** How many wait now, across all chats. */
  readonly count: number;
  /** Calls that started waiting with this change (empty when calls were only resolved). */
  readonly added: readonly PendingApproval[];
}

/**
 * The calls that wait for a person across every chat, kept current from the approval events (what
 * the tray, the badge and notifications show). It holds no state of its own beyond a copy of the
 * coordinator's: it starts from `initial()` (calls that survived a restart) and follows
 * `approvals.onDidChange` (waiting, resolved) and `chat.onDidChange` (a deleted chat's calls are gone).
 */
export interface ApprovalTracker {
  count(): number;
  /** Oldest first. */
  waiting(): readonly PendingApproval[];
  /** The call a person should see first: the oldest. */
  first(): PendingApproval | undefined;
  onDidChange(listener: (change: ApprovalTrackerChange) => void): () => void;
  dispose(): void;
}

export interface ApprovalTrackerDependencies {
  /** The pending store's typed changes (`PendingApprovals.onDidChange`). */
  approvals: Subscribe<ApprovalsChange>;
  /** The chats' typed changes (`ChatService.onDidChange`). */
  chats: Subscribe<ChatChange>;
  /** Every chat's waiting calls now, oldest first (`PendingApprovals.allWaiting`). */
  initial: () => readonly PendingApproval[];
  onError?: (error: unknown) => void;
}

const keyOf = (chatId: string, toolCallId: string): string => `${chatId}\u0000${toolCallId}`;

export function createApprovalTracker({
  approvals,
  chats,
  initial,
  onError = () => {},
}: ApprovalTrackerDependencies): ApprovalTracker {
  // Insertion order is arrival order: the oldest first.
  const waiting = new Map<string, PendingApproval>();
  for (const approval of initial()) waiting.set(keyOf(approval.chatId, approval.request.toolCallId), approval);
  const listeners = new Set<(change: ApprovalTrackerChange) => void>();

  const announce = (added: readonly PendingApproval[]): void => {
    const change: ApprovalTrackerChange = { count: waiting.size, added };
    for (const listener of [...listeners]) {
      try {
        listener(change);
      } catch (error) {
        onError(error);
      }
    }
  };

  const unsubscribeApprovals = approvals((change) => {
    {
      if (change.kind === 'pending') {
        const added = change.approvals.filter(
          (approval) => !waiting.has(keyOf(approval.chatId, approval.request.toolCallId)),
        );
        for (const approval of added) waiting.set(keyOf(approval.chatId, approval.request.toolCallId), approval);
        if (added.length > 0) announce(added);
      } else if (change.kind === 'resolved') {
        const removed = change.resolutions.filter((resolution) =>
          waiting.delete(keyOf(resolution.chatId, resolution.toolCallId)),
        );
        if (removed.length > 0) announce([]);
      }
    }
  });
  const unsubscribeChats = chats((change) => {
    {
      if (change.kind !== 'deleted') return;
      let removed = false;
      for (const [key, approval] of waiting) {
        if (approval.chatId === change.id) removed = waiting.delete(key) || removed;
      }
      if (removed) announce([]);
    }
  });

  return {
    count: () => waiting.size,
    waiting: () => [...waiting.values()],
    first: () => waiting.values().next().value,
    onDidChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      unsubscribeApprovals();
      unsubscribeChats();
      listeners.clear();
    },
  };
}
