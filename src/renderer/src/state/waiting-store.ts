import type { WorkbenchApi } from '../../../shared/api';
import type { PendingApproval } from '../../../shared/approval';
import type { ServerRequestsChange, ServerRequestView } from '../../../shared/server-request-views';
import { afterListing, withRequestChange } from './waiting-requests';

/**
 * What waits for the person, across every chat: what the badges, the sidebar's count, the window title, the inbox and
 * Ctrl+Shift+A use — one count of everything the inbox lists.
 */
export interface WaitingSnapshot {
  /**
   * Everything that waits: the tool calls and the servers' requests, held here or by another process (a
   * `workbench chat`). The sidebar's count and the window title.
   */
  readonly total: number;
  /** The tool calls that wait, per chat (the tabs' and the chat list's badges). */
  readonly byChat: ReadonlyMap<string, number>;
  /** The call a person should see first: the oldest. */
  readonly oldest: PendingApproval | null;
  /** Every waiting call, for the inbox. */
  readonly all: readonly PendingApproval[];
  /** Every server request that waits, here or held by another process, for the inbox (./waiting-requests.ts). */
  readonly requests: readonly ServerRequestView[];
}

/** How often the app lists the servers' requests again: those other processes hold send no event here. */
export const REQUESTS_LOOK_MS = 1_000;

const EMPTY: WaitingSnapshot = { total: 0, byChat: new Map(), oldest: null, all: [], requests: [] };
const keyOf = (approval: { chatId: string; toolCallId: string }): string =>
  `${approval.chatId}\u0000${approval.toolCallId}`;

/**
 * What waits for the person (docs/user/approvals.md "What waits"): the waiting calls of every chat, open in a tab or
 * not, loaded from `approvals.pending` and kept current from `approvals.onDidChange` and `chat.onDidChange` (a deleted
 * chat's calls are gone); and the servers' requests, kept current from `serverRequests.onDidChange` and listed again
 * every `REQUESTS_LOOK_MS` for those another process holds.
 */
export class WaitingStore {
  private readonly waiting = new Map<string, PendingApproval>();
  private requests: readonly ServerRequestView[] = [];
  /** The request events since the oldest listing still on its way was asked for, and how many came before them. */
  private recent: Pick<ServerRequestsChange, 'kind' | 'request'>[] = [];
  private recentBase = 0;
  private listings = 0;
  private snapshot: WaitingSnapshot = EMPTY;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: WorkbenchApi) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): WaitingSnapshot => this.snapshot;

  /** Loads every chat's waiting calls and the servers' requests (at start and after a reconnect). */
  async load(): Promise<void> {
    const requests = this.listRequests().catch(() => undefined);
    const { approvals } = await this.api.approvals.pending({});
    this.waiting.clear();
    for (const approval of approvals)
      this.waiting.set(keyOf({ chatId: approval.chatId, toolCallId: approval.request.toolCallId }), approval);
    this.changed();
    await requests;
  }

  /** Lists the servers' requests again: the truth as of the asking, with the events since applied over it. */
  private async listRequests(): Promise<void> {
    const from = this.recentBase + this.recent.length;
    this.listings += 1;
    try {
      const { requests } = await this.api.serverRequests.list({});
      const next = afterListing(this.requests, requests, this.recent.slice(from - this.recentBase));
      if (next !== this.requests) {
        this.requests = next;
        this.changed();
      }
    } finally {
      this.listings -= 1;
      if (this.listings === 0) {
        this.recentBase += this.recent.length;
        this.recent = [];
      }
    }
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
    const offRequests = this.api.serverRequests.onDidChange(({ kind, request }) => {
      if (this.listings > 0) this.recent.push({ kind, request });
      this.requests = withRequestChange(this.requests, { kind, request });
      this.changed();
    });
    // What another process holds sends no event here: listed again, one listing at a time.
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = (): void => {
      timer = setTimeout(() => {
        void this.listRequests()
          .catch(() => undefined)
          .finally(() => {
            if (live) look();
          });
      }, REQUESTS_LOOK_MS);
    };
    look();
    return () => {
      live = false;
      clearTimeout(timer);
      offApprovals();
      offChats();
      offRequests();
    };
  }

  private changed(): void {
    const byChat = new Map<string, number>();
    let oldest: PendingApproval | null = null;
    for (const approval of this.waiting.values()) {
      byChat.set(approval.chatId, (byChat.get(approval.chatId) ?? 0) + 1);
      if (oldest === null || approval.createdAt < oldest.createdAt) oldest = approval;
    }
    this.snapshot = {
      total: this.waiting.size + this.requests.length,
      byChat,
      oldest,
      all: [...this.waiting.values()],
      requests: this.requests,
    };
    for (const listener of [...this.listeners]) listener();
  }
}

/** "1 call waits" / "3 calls wait": a chat's badge's accessible name. */
export function waitingLabel(count: number): string {
  return count === 1 ? '1 call waits for your decision' : `${count} calls wait for your decision`;
}

/** "1 request waits" / "3 requests wait": the sidebar's count of everything that waits, in words. */
export function inboxLabel(count: number): string {
  return count === 1 ? '1 request waits for your answer' : `${count} requests wait for your answer`;
}
