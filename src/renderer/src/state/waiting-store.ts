import type { WorkbenchApi } from '../../../shared/api';
import type { PendingApproval } from '../../../shared/approval';

/** The calls that wait for a person, across every chat: what the badges, the window title and Ctrl+Shift+A use. */
export interface WaitingSnapshot {
  readonly total: number;
  readonly byChat: ReadonlyMap<string, number>;
  /** The call a person should see first: the oldest. */
  readonly oldest: PendingApproval | null;
  /** Every waiting call, for the inbox. */
  readonly all: readonly PendingApproval[];
}

const EMPTY: WaitingSnapshot = { total: 0, byChat: new Map(), oldest: null, all: [] };
const keyOf = (approval: { chatId: string; toolCallId: string }): string =>
  `${approval.chatId}\u0000${approval.toolCallId}`;

/**
 * The waiting calls of every chat, open in a tab or not (docs/user/approvals.md "What waits"): loaded
 * from `approvals.pending` and kept current from `approvals.onDidChange` and `chat.onDidChange` (a deleted chat's
 * calls are gone) — the renderer's copy of what the desktop shell's tracker counts.
 */
export class WaitingStore {
  private readonly waiting = new Map<string, PendingApproval>();
  private snapshot: WaitingSnapshot = EMPTY;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: WorkbenchApi) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): WaitingSnapshot => this.snapshot;

  /** Loads every chat's waiting calls (at start and after a reconnect). */
  async load(): Promise<void> {
    const { approvals } = await this.api.approvals.pending({});
    this.waiting.clear();
    for (const approval of approvals)
      this.waiting.set(keyOf({ chatId: approval.chatId, toolCallId: approval.request.toolCallId }), approval);
    this.changed();
  }

  follow(): () => void {
    const offApprovals = this.api.approvals.onDidChange((change) => {
      if (change.kind === 'pending') {
        for (const approval of change.approvals)
          this.waiting.set(keyOf({ chatId: approval.chatId, toolCallId: approval.request.toolCallId }), approval);
      } else if (change.kind === 'resolved') {
        for (const resolution of change.resolutions) this.waiting.delete(keyOf(resolution));
      } else return;
      this.changed();
    });
    const offChats = this.api.chat.onDidChange((change) => {
      if (change.kind !== 'deleted') return;
      for (const [key, approval] of this.waiting) if (approval.chatId === change.id) this.waiting.delete(key);
      this.changed();
    });
    return () => {
      offApprovals();
      offChats();
    };
  }

  private changed(): void {
    const byChat = new Map<string, number>();
    let oldest: PendingApproval | null = null;
    for (const approval of this.waiting.values()) {
      byChat.set(approval.chatId, (byChat.get(approval.chatId) ?? 0) + 1);
      if (oldest === null || approval.createdAt < oldest.createdAt) oldest = approval;
    }
    this.snapshot = { total: this.waiting.size, byChat, oldest, all: [...this.waiting.values()] };
    for (const listener of [...this.listeners]) listener();
  }
}

/** "1 call waits" / "3 calls wait": the badge's accessible name. */
export function waitingLabel(count: number): string {
  return count === 1 ? '1 call waits for your decision' : `${count} calls wait for your decision`;
}
