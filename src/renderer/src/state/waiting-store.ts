import type { WorkbenchApi } from '../../../shared/api';
import type { ApprovalsChange, PendingApproval } from '../../../shared/approval';
import type { ServerRequestsChange, ServerRequestView } from '../../../shared/server-request-views';
import { WAITING_LOOK_MS, waitingTotal } from '../../../shared/waiting';
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

/** How often the app lists what waits again: what other processes hold sends no event here. */
export const REQUESTS_LOOK_MS = WAITING_LOOK_MS;

const EMPTY: WaitingSnapshot = { total: 0, byChat: new Map(), oldest: null, all: [], requests: [] };
const keyOf = (approval: { chatId: string; toolCallId: string }): string =>
  `${approval.chatId}\u0000${approval.toolCallId}`;
const approvalKey = (approval: PendingApproval): string =>
  keyOf({ chatId: approval.chatId, toolCallId: approval.request.toolCallId });

/** An event that changed what waits, kept while a listing is on its way so it is applied over that listing. */
type WaitingEvent =
  | { kind: 'approvals'; change: ApprovalsChange }
  | { kind: 'chat-deleted'; chatId: string }
  | { kind: 'request'; change: Pick<ServerRequestsChange, 'kind' | 'request'> };

/** A tool call that starts waiting joins; one resolved, or of a deleted chat, leaves. */
function applyToCalls(waiting: Map<string, PendingApproval>, event: WaitingEvent): boolean {
  if (event.kind === 'chat-deleted') {
    let removed = false;
    for (const [key, approval] of waiting)
      if (approval.chatId === event.chatId) removed = waiting.delete(key) || removed;
    return removed;
  }
  if (event.kind !== 'approvals') return false;
  const { change } = event;
  if (change.kind === 'pending') {
    for (const approval of change.approvals) waiting.set(approvalKey(approval), approval);
    return change.approvals.length > 0;
  }
  if (change.kind === 'resolved') {
    let removed = false;
    for (const resolution of change.resolutions) removed = waiting.delete(keyOf(resolution)) || removed;
    return removed;
  }
  return false;
}

const sameCalls = (a: ReadonlyMap<string, PendingApproval>, b: ReadonlyMap<string, PendingApproval>): boolean =>
  a.size === b.size && [...a.keys()].every((key) => b.has(key));

/**
 * What waits for the person (docs/user/approvals.md "What waits"): the waiting calls of every chat, open in a tab or
 * not, and the servers' requests, each kept current from its events (`approvals.onDidChange`, `chat.onDidChange` — a
 * deleted chat's calls are gone —, `serverRequests.onDidChange`) and both listed again every `REQUESTS_LOOK_MS` for
 * what another process holds (a `workbench chat`'s tool calls and its servers' requests send no event here). A
 * listing is the truth as of its asking: the events that arrived while it was on its way are applied over it again.
 */
export class WaitingStore {
  private waiting = new Map<string, PendingApproval>();
  private requests: readonly ServerRequestView[] = [];
  /** The events since the oldest listing still on its way was asked for, and how many came before them. */
  private recent: WaitingEvent[] = [];
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
    await this.list();
  }

  /** Lists what waits again: the truth as of the asking, with the events since applied over it. */
  private async list(): Promise<void> {
    const from = this.recentBase + this.recent.length;
    this.listings += 1;
    try {
      const requests = this.api.serverRequests.list({}).then(
        (listed) => listed.requests,
        () => undefined,
      );
      const { approvals } = await this.api.approvals.pending({});
      const listedRequests = await requests;
      const since = this.recent.slice(from - this.recentBase);
      const waiting = new Map(approvals.map((approval) => [approvalKey(approval), approval]));
      for (const event of since) applyToCalls(waiting, event);
      const next =
        listedRequests === undefined
          ? this.requests
          : afterListing(
              this.requests,
              listedRequests,
              since.flatMap((event) => (event.kind === 'request' ? [event.change] : [])),
            );
      const callsChanged = !sameCalls(this.waiting, waiting);
      if (callsChanged) this.waiting = waiting;
      if (callsChanged || next !== this.requests) {
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

  /** Applies an event now, and keeps it for the listings on their way. */
  private apply(event: WaitingEvent): void {
    if (this.listings > 0) this.recent.push(event);
    if (event.kind === 'request') this.requests = withRequestChange(this.requests, event.change);
    else if (!applyToCalls(this.waiting, event)) return;
    this.changed();
  }

  follow(): () => void {
    const offApprovals = this.api.approvals.onDidChange((change) => this.apply({ kind: 'approvals', change }));
    const offChats = this.api.chat.onDidChange((change) => {
      if (change.kind === 'deleted') this.apply({ kind: 'chat-deleted', chatId: change.id });
    });
    const offRequests = this.api.serverRequests.onDidChange(({ kind, request }) =>
      this.apply({ kind: 'request', change: { kind, request } }),
    );
    // What another process holds sends no event here: listed again, one listing at a time.
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = (): void => {
      timer = setTimeout(() => {
        void this.list()
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
    const all = [...this.waiting.values()];
    this.snapshot = {
      total: waitingTotal({ approvals: all, requests: this.requests }),
      byChat,
      oldest,
      all,
      requests: this.requests,
    };
    for (const listener of [...this.listeners]) listener();
  }
}

/** "1 call waits" / "3 calls wait": a chat's badge's accessible name. */
export function waitingLabel(count: number): string {
  return count === 1 ? '1 call waits for your decision' : `${count} calls wait for your decision`;
}
