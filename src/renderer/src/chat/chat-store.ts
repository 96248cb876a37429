import type { WorkbenchApi } from '../../../shared/api';
import type {
  ApprovalsChange,
  ArgumentMatcher,
  RememberAction,
  RememberOptions,
  ToolCallApproval,
  ToolCallDecision,
  ToolCallRequest,
} from '../../../shared/approval';
import { rememberedStore } from '../state/remembered';
import { errorText } from '../../../shared/error-data';
import { refusedCalls } from './approval/refusals';
import { CardStates } from './approval/card-state';
import { RequestCardStates } from './server-request-cards/request-card-state';
import type { ChatActivity, ChatMessage, ChatStreamEvent, ResourceAttachment } from '../../../shared/messages';
import {
  applyStreamEvent,
  dropRows,
  EMPTY_TIMELINE,
  prependMessages,
  restoreRows,
  timelineOf,
  upsertMessage,
  viewOf,
  type ExchangeRow,
  type Timeline,
} from './timeline';

/** A person's answer to one waiting call, held in the card until every waiting call of the chat has one. */
export interface Draft {
  decision: ToolCallDecision;
  editedArgs?: Record<string, unknown>;
  reason?: string;
  /** Allow only: what the policy remembers with this answer (docs/user/approvals.md "Remember from the card"). */
  remember?: RememberAction;
}

/**
 * What a card's argument editor holds, reported on every keystroke: arguments that can be sent, or the problem that
 * keeps them from being sent. The store keeps it (not the card) so every way of allowing (the card's buttons, Enter,
 * Allow all once, Alt+Enter) sends exactly what the card shows, and none of them can allow a call whose edit is invalid.
 */
export type ArgsEdit = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/** The answer a person gives; the edited arguments come from the call's edit in the store. */
export interface Answer {
  decision: ToolCallDecision;
  reason?: string;
  remember?: RememberAction;
}

const ALLOW_BLOCKED = 'Fix the arguments first';

/**
 * What the chat tab is doing, as one named state (docs/dev/style.md, convention 7):
 * `idle` the input is open; `replying` the model or tools work; `waiting-approval` calls wait for the person
 * (the input is disabled, seed 000); `submitting` the approval message or a user message is on its way.
 */
export type ChatPhase = 'loading' | 'idle' | 'replying' | 'waiting-approval' | 'submitting';

export interface ChatState {
  readonly status: 'loading' | 'ready' | 'failed';
  readonly loadError: string | null;
  readonly timeline: Timeline;
  /** The list's index of the first row: lowered by the rows a page of older messages added in front. */
  readonly firstItemIndex: number;
  readonly hasMore: boolean;
  readonly loadingOlder: boolean;
  readonly activity: ChatActivity;
  /** toolCallId → when the wait ends as a timeout (ms since the epoch), null for never. */
  readonly expiries: ReadonlyMap<string, number | null>;
  readonly drafts: ReadonlyMap<string, Draft>;
  /** toolCallId → the card's edit of the arguments; absent when they are the model's. */
  readonly edits: ReadonlyMap<string, ArgsEdit>;
  /**
   * toolCallId → why the last approval message was refused for this call (a deny rule refused its edit): its card is
   * undecided again and says so, until it is answered again (approval/refusals.ts).
   */
  readonly refusals: ReadonlyMap<string, string>;
  readonly submitting: boolean;
  /** The last failed action (send, stop, the approval message), in words; cleared by the next success. */
  readonly actionError: string | null;
  /** The approval card to bring into view and focus (a notification was clicked). */
  readonly focusRequest: { toolCallId: string; nonce: number } | null;
}

export const FIRST_INDEX = 1_000_000;
/**
 * Text deltas are applied at most this often: a render per delta (the main process sends one about every 30 ms)
 * costs layout and paint each time, and 20 updates a second already read as fluid streaming.
 */
export const TEXT_FLUSH_MS = 50;
export const PAGE_SIZE = 100;
/**
 * Rows beyond either edge of the list's window whose messages the store keeps; rows further away are dropped from
 * memory and loaded again as the window comes within `LOAD_AHEAD_ROWS` of them (docs/dev/chat-list.md, "What the
 * store holds").
 */
export const KEEP_ROWS = 120;
export const LOAD_AHEAD_ROWS = 40;
/** The most messages one request for dropped rows asks for (the contract's `limit` allows 10,000). */
const RELOAD_LIMIT = 1_000;

/** The calls of the chat that wait for a person, in the order the replies asked for them. */
export function pendingRequests(timeline: Timeline): ToolCallRequest[] {
  const last = timeline.rows.at(-1);
  if (!last) return [];
  return viewOf(last).replies.flatMap((reply) => reply.reply.pendingToolCalls ?? []);
}

export function phaseOf(state: ChatState): ChatPhase {
  if (state.status === 'loading') return 'loading';
  if (state.submitting) return 'submitting';
  if (pendingRequests(state.timeline).length > 0) return 'waiting-approval';
  if (state.activity.status === 'waiting-approval') return 'waiting-approval';
  return state.activity.status === 'idle' ? 'idle' : 'replying';
}

/** Drops the oldest exchange of a page when it may be cut (older messages of it come with the next page). */
export function trimPage(
  messages: readonly ChatMessage[],
  hasMore: boolean,
): { messages: ChatMessage[]; hasMore: boolean } {
  const first = messages[0];
  if (!hasMore || !first) return { messages: [...messages], hasMore };
  const cut = messages.findIndex((message) => message.exchangeId !== first.exchangeId);
  // A page that is all one exchange is kept whole; it joins its older part when that arrives.
  return cut <= 0 ? { messages: [...messages], hasMore } : { messages: messages.slice(cut), hasMore: true };
}

/** One chat tab's messages and approvals: loaded in pages, kept current by `chat.onDidStream` and `approvals.onDidChange`. */
export class ChatStore {
  private state: ChatState = {
    status: 'loading',
    loadError: null,
    timeline: EMPTY_TIMELINE,
    firstItemIndex: FIRST_INDEX,
    hasMore: false,
    loadingOlder: false,
    activity: { status: 'idle', exchangeId: null },
    expiries: new Map(),
    drafts: new Map(),
    edits: new Map(),
    refusals: new Map(),
    submitting: false,
    actionError: null,
    focusRequest: null,
  };
  /** What each waiting call's card shows besides its answer, kept across the card's unmounts (card-state.ts). */
  readonly cardStates = new CardStates();
  /** What each waiting server request's card holds, kept across its unmounts (request-card-state.ts). */
  readonly requestCardStates = new RequestCardStates();
  private readonly listeners = new Set<() => void>();
  private queued: ChatStreamEvent[] | null = null;
  private oldestSeq: number | null = null;
  private unsubscribe: (() => void) | null = null;
  private generation = 0;
  private textBuffer: Extract<ChatStreamEvent, { kind: 'text' }>[] = [];
  private textTimer: ReturnType<typeof setTimeout> | null = null;
  /** Exchanges whose dropped messages are being loaded again. */
  private readonly reloading = new Set<string>();

  constructor(
    private readonly api: WorkbenchApi,
    readonly chatId: string,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): ChatState => this.state;

  /** Follows the chat's events and loads its newest messages; call again after a reconnect. */
  start(): void {
    if (!this.unsubscribe) {
      const offStream = this.api.chat.onDidStream((event) => {
        if (event.chatId === this.chatId) this.onStream(event);
      });
      const offApprovals = this.api.approvals.onDidChange((change) => {
        if (change.chatId === this.chatId) this.onApprovals(change);
      });
      this.unsubscribe = () => {
        offStream();
        offApprovals();
      };
    }
    void this.load();
  }

  dispose(): void {
    if (this.textTimer) clearTimeout(this.textTimer);
    this.textTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.listeners.clear();
  }

  async load(): Promise<void> {
    const generation = ++this.generation;
    this.queued = [];
    try {
      const [page, pending] = await Promise.all([
        this.api.chat.messages({ chatId: this.chatId, limit: PAGE_SIZE }),
        this.api.approvals.pending({ chatId: this.chatId }),
      ]);
      if (generation !== this.generation) return;
      const trimmed = trimPage(page.messages, page.hasMore);
      this.oldestSeq = trimmed.messages[0]?.seq ?? null;
      const queued = this.queued;
      this.queued = null;
      this.set({
        status: 'ready',
        loadError: null,
        timeline: timelineOf(trimmed.messages),
        firstItemIndex: FIRST_INDEX,
        hasMore: trimmed.hasMore,
        activity: page.activity,
        expiries: new Map(pending.approvals.map((approval) => [approval.request.toolCallId, approval.expiresAt])),
      });
      for (const event of queued) this.onStream(event);
      this.forgetStaleDrafts();
    } catch (error) {
      if (generation !== this.generation) return;
      this.queued = null;
      this.set({ status: this.state.status === 'ready' ? 'ready' : 'failed', loadError: errorText(error) });
    }
  }

  /** The page before the oldest loaded message (scrolling up). */
  async loadOlder(): Promise<void> {
    if (!this.state.hasMore || this.state.loadingOlder || this.oldestSeq === null) return;
    this.set({ loadingOlder: true });
    try {
      const page = await this.api.chat.messages({ chatId: this.chatId, beforeSeq: this.oldestSeq, limit: PAGE_SIZE });
      const trimmed = trimPage(page.messages, page.hasMore);
      this.oldestSeq = trimmed.messages[0]?.seq ?? this.oldestSeq;
      const { timeline, added } = prependMessages(this.state.timeline, trimmed.messages);
      this.set({
        timeline,
        firstItemIndex: this.state.firstItemIndex - added,
        hasMore: trimmed.hasMore,
        loadingOlder: false,
      });
    } catch (error) {
      this.set({ loadingOlder: false, actionError: errorText(error) });
    }
  }

  /**
   * The list shows item indices `[start, end)`: rows more than `KEEP_ROWS` beyond it drop their messages from memory
   * (never the newest exchange: its waiting calls and streaming reply live there), and dropped rows within
   * `LOAD_AHEAD_ROWS` of it are loaded again, before the list reaches them. What the person gave waiting cards is
   * not in the rows and stays (docs/dev/chat-list.md, "What the store holds").
   */
  keepAround(window: { start: number; end: number }): void {
    if (this.state.status !== 'ready') return;
    const rows = this.state.timeline.rows;
    const from = window.start - this.state.firstItemIndex;
    const to = window.end - this.state.firstItemIndex;
    const far: number[] = [];
    for (let at = 0; at < rows.length - 1; at++) if (at < from - KEEP_ROWS || at >= to + KEEP_ROWS) far.push(at);
    const timeline = dropRows(this.state.timeline, far);
    if (timeline !== this.state.timeline) this.set({ timeline });
    const near: { at: number; row: ExchangeRow }[] = [];
    for (let at = Math.max(0, from - LOAD_AHEAD_ROWS); at < Math.min(rows.length, to + LOAD_AHEAD_ROWS); at++) {
      const row = this.state.timeline.rows[at] as ExchangeRow;
      if (row.dropped && !this.reloading.has(row.exchangeId)) near.push({ at, row });
    }
    for (const run of reloadRuns(near)) void this.reload(run);
  }

  /** Loads dropped rows again: one run of them, oldest first, in one request. */
  private async reload(run: readonly ExchangeRow[]): Promise<void> {
    const generation = this.generation;
    // Every message of the run's span (`seq` counts a chat's messages one by one): another exchange's message in
    // it comes along and is not used; a row comes back only whole (restoreRows).
    const first = (run[0] as ExchangeRow).dropped as NonNullable<ExchangeRow['dropped']>;
    const last = (run.at(-1) as ExchangeRow).dropped as NonNullable<ExchangeRow['dropped']>;
    const limit = Math.min(10_000, last.lastSeq - first.firstSeq + 1);
    for (const row of run) this.reloading.add(row.exchangeId);
    try {
      const page = await this.api.chat.messages({ chatId: this.chatId, beforeSeq: last.lastSeq + 1, limit });
      if (generation !== this.generation) return;
      this.set({ timeline: restoreRows(this.state.timeline, page.messages) });
    } catch (error) {
      if (generation === this.generation)
        this.set({ actionError: `Earlier messages could not be loaded: ${errorText(error)}` });
    } finally {
      for (const row of run) this.reloading.delete(row.exchangeId);
    }
  }

  async send(text: string, attachments: readonly ResourceAttachment[] = []): Promise<boolean> {
    this.set({ submitting: true });
    try {
      const sent = await this.api.chat.send({
        chatId: this.chatId,
        message: { role: 'user', text, ...(attachments.length > 0 ? { attachments: [...attachments] } : {}) },
      });
      this.set({ timeline: upsertMessage(this.state.timeline, sent.message), submitting: false, actionError: null });
      return true;
    } catch (error) {
      this.set({ submitting: false, actionError: errorText(error) });
      return false;
    }
  }

  async stop(): Promise<void> {
    try {
      await this.api.chat.stop({ chatId: this.chatId });
      this.set({ actionError: null });
    } catch (error) {
      this.set({ actionError: errorText(error) });
    }
  }

  /** The card's edit of a call's arguments; null when they are back to the model's. */
  edit(toolCallId: string, edit: ArgsEdit | null): void {
    const edits = new Map(this.state.edits);
    if (edit) edits.set(toolCallId, edit);
    else edits.delete(toolCallId);
    this.set({ edits });
  }

  /** Why a call cannot be allowed now (its edit is invalid), or null. */
  allowBlocked(toolCallId: string): string | null {
    const edit = this.state.edits.get(toolCallId);
    return edit && !edit.ok ? `${ALLOW_BLOCKED}: ${edit.error}` : null;
  }

  /**
   * Records a person's answer to one call, with the card's edit when it allows; the approval message goes once every
   * waiting call has one. An allow is refused (false) while the call's edit is invalid: the model's arguments must
   * never run in place of an edit the person is making.
   */
  decide(toolCallId: string, answer: Answer): boolean {
    if (this.state.submitting) return false;
    const draft = this.draftOf(toolCallId, answer);
    if (!draft) return false;
    const drafts = new Map(this.state.drafts);
    drafts.set(toolCallId, draft);
    const refusals = new Map(this.state.refusals);
    refusals.delete(toolCallId);
    this.set({ drafts, refusals, actionError: null });
    void this.submitWhenComplete();
    return true;
  }

  /**
   * Every undecided call (Allow all / Deny all); decided ones keep their answer, and each allowed call takes its card's
   * edit. Allow all is refused as a whole (false, with the reason shown and the card brought into view) when one
   * undecided call's edit is invalid: allowing the others would send a batch the person has not finished.
   */
  decideAll(decision: ToolCallDecision): boolean {
    if (this.state.submitting) return false;
    const undecided = pendingRequests(this.state.timeline).filter(
      (request) => !this.state.drafts.has(request.toolCallId),
    );
    const blocked =
      decision === 'TOOL_CALL_DECISION_DENY'
        ? undefined
        : undecided.find((request) => this.allowBlocked(request.toolCallId));
    if (blocked) {
      this.set({
        actionError: `Nothing was allowed: the edited arguments of ${blocked.toolName} are not valid. Fix them, reset the edit, or deny that call.`,
      });
      this.requestFocus(blocked.toolCallId);
      return false;
    }
    const drafts = new Map(this.state.drafts);
    for (const request of undecided)
      drafts.set(request.toolCallId, this.draftOf(request.toolCallId, { decision }) as Draft);
    this.set({ drafts, actionError: null });
    void this.submitWhenComplete();
    return true;
  }

  undo(toolCallId: string): void {
    if (this.state.submitting) return;
    const drafts = new Map(this.state.drafts);
    drafts.delete(toolCallId);
    this.set({ drafts });
  }

  /** Brings a call's card into view (from a notification); the card focuses itself. */
  requestFocus(toolCallId: string): void {
    this.set({ focusRequest: { toolCallId, nonce: (this.state.focusRequest?.nonce ?? 0) + 1 } });
  }

  dismissError(): void {
    this.set({ actionError: null });
  }

  /**
   * What the card's "More…" menu offers for a waiting call, for the arguments the card shows (its valid edit) and a
   * rule the person is editing; checked by main with the same function that checks the approval message.
   */
  rememberOptions(toolCallId: string, rule?: ArgumentMatcher[]): Promise<RememberOptions> {
    const edit = this.state.edits.get(toolCallId);
    return this.api.approvals.rememberOptions({
      chatId: this.chatId,
      toolCallId,
      ...(edit?.ok ? { args: edit.args } : {}),
      ...(rule ? { rule } : {}),
    });
  }

  private draftOf(toolCallId: string, { decision, reason, remember }: Answer): Draft | null {
    if (decision === 'TOOL_CALL_DECISION_DENY') return { decision, ...(reason ? { reason } : {}) };
    const edit = this.state.edits.get(toolCallId);
    if (edit && !edit.ok) return null;
    return { decision, ...(edit ? { editedArgs: edit.args } : {}), ...(remember ? { remember } : {}) };
  }

  private async submitWhenComplete(): Promise<void> {
    const requests = pendingRequests(this.state.timeline);
    if (requests.length === 0 || requests.some((request) => !this.state.drafts.has(request.toolCallId))) return;
    const toolCallApprovals: ToolCallApproval[] = requests.map((request) => {
      const draft = this.state.drafts.get(request.toolCallId) as Draft;
      return {
        toolCallId: request.toolCallId,
        decision: draft.decision,
        ...(draft.editedArgs && draft.decision !== 'TOOL_CALL_DECISION_DENY' ? { editedArgs: draft.editedArgs } : {}),
        ...(draft.reason && draft.decision === 'TOOL_CALL_DECISION_DENY' ? { reason: draft.reason } : {}),
        ...(draft.remember && draft.decision !== 'TOOL_CALL_DECISION_DENY' ? { remember: draft.remember } : {}),
      };
    });
    this.set({ submitting: true });
    try {
      const sent = await this.api.chat.send({ chatId: this.chatId, message: { role: 'approval', toolCallApprovals } });
      this.set({ timeline: upsertMessage(this.state.timeline, sent.message), submitting: false, actionError: null });
      for (const approval of toolCallApprovals) {
        const request = requests.find((candidate) => candidate.toolCallId === approval.toolCallId);
        if (approval.remember && request) {
          rememberedStore.set({
            chatId: this.chatId,
            serverName: request.serverName,
            toolName: request.toolName,
            action: approval.remember,
            at: Date.now(),
          });
        }
      }
    } catch (error) {
      // Nothing was decided: the cards stay, with their answers, so the person can change one and send again — except
      // a call the refusal names (a deny rule refused its edit): its card is undecided again, with the rule's words.
      const refused = refusedCalls(error);
      const drafts = new Map(this.state.drafts);
      for (const toolCallId of refused.keys()) drafts.delete(toolCallId);
      this.set({
        submitting: false,
        drafts,
        refusals: refused,
        actionError: `The decisions were not sent: ${errorText(error)}`,
      });
    }
  }

  private onStream(event: ChatStreamEvent): void {
    if (this.queued) {
      this.queued.push(event);
      return;
    }
    if (event.kind === 'text') {
      this.textBuffer.push(event);
      this.textTimer ??= setTimeout(() => this.flushTextOnNextFrame(), TEXT_FLUSH_MS);
      return;
    }
    // Everything else lands after the text that came before it.
    this.flushText();
    switch (event.kind) {
      case 'tool-call':
        this.set({ timeline: applyStreamEvent(this.state.timeline, event) });
        return;
      case 'message':
        this.set({ timeline: upsertMessage(this.state.timeline, event.message) });
        this.forgetStaleDrafts();
        return;
      case 'activity':
        this.set({ activity: event.activity });
        return;
      case 'error':
        // The same error arrives as an `error` message, which the list shows.
        return;
    }
  }

  /**
   * The buffered text is applied in an animation frame, just before the browser lays out and paints, so a batch of
   * tokens costs one render, one layout and one paint (docs/dev/benchmarks.md, ui-streaming). A hidden page gets no
   * frames: a timer applies it anyway after TEXT_FLUSH_MS more. Without frames at all (tests in Node) it applies now.
   */
  private flushTextOnNextFrame(): void {
    if (typeof requestAnimationFrame !== 'function') {
      this.flushText();
      return;
    }
    const frame = requestAnimationFrame(() => {
      clearTimeout(backstop);
      this.flushText();
    });
    const backstop = setTimeout(() => {
      cancelAnimationFrame(frame);
      this.flushText();
    }, TEXT_FLUSH_MS);
    this.textTimer = backstop;
  }

  private flushText(): void {
    if (this.textTimer) clearTimeout(this.textTimer);
    this.textTimer = null;
    if (this.textBuffer.length === 0) return;
    let timeline = this.state.timeline;
    for (const event of this.textBuffer) timeline = applyStreamEvent(timeline, event);
    this.textBuffer = [];
    this.set({ timeline });
  }

  private onApprovals(change: ApprovalsChange): void {
    if (change.kind === 'pending') {
      const expiries = new Map(this.state.expiries);
      for (const approval of change.approvals) expiries.set(approval.request.toolCallId, approval.expiresAt);
      this.set({ expiries });
    } else if (change.kind === 'resolved') {
      const expiries = new Map(this.state.expiries);
      for (const resolution of change.resolutions) expiries.delete(resolution.toolCallId);
      this.set({ expiries });
    }
  }

  /** Answers and edits of calls that no longer wait (decided, timed out, stopped) are dropped. */
  private forgetStaleDrafts(): void {
    if (
      this.state.drafts.size === 0 &&
      this.state.edits.size === 0 &&
      this.state.refusals.size === 0 &&
      this.cardStates.size === 0
    )
      return;
    const waiting = new Set(pendingRequests(this.state.timeline).map((request) => request.toolCallId));
    this.cardStates.retain(waiting);
    const stale = (map: ReadonlyMap<string, unknown>): boolean => [...map.keys()].some((id) => !waiting.has(id));
    if (!stale(this.state.drafts) && !stale(this.state.edits) && !stale(this.state.refusals)) return;
    this.set({
      drafts: new Map([...this.state.drafts].filter(([id]) => waiting.has(id))),
      edits: new Map([...this.state.edits].filter(([id]) => waiting.has(id))),
      refusals: new Map([...this.state.refusals].filter(([id]) => waiting.has(id))),
    });
  }

  private set(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * Dropped rows (`near`, with their positions, in row order) in runs of neighbouring rows, each spanning at most
 * RELOAD_LIMIT messages: a run is loaded with one request, for the messages of its span.
 */
export function reloadRuns(near: readonly { at: number; row: ExchangeRow }[]): ExchangeRow[][] {
  const runs: ExchangeRow[][] = [];
  let run: ExchangeRow[] = [];
  let previousAt = -2;
  for (const { at, row } of near) {
    const dropped = row.dropped;
    if (!dropped) continue;
    const first = run[0]?.dropped;
    if (first && (at !== previousAt + 1 || dropped.lastSeq - first.firstSeq + 1 > RELOAD_LIMIT)) {
      runs.push(run);
      run = [];
    }
    run.push(row);
    previousAt = at;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The stores of the open chats, kept while their tab is open so a tab switch loses nothing. */
export class ChatStores {
  private readonly stores = new Map<string, ChatStore>();

  constructor(private readonly api: WorkbenchApi) {}

  get(chatId: string): ChatStore {
    let store = this.stores.get(chatId);
    if (!store) {
      store = new ChatStore(this.api, chatId);
      this.stores.set(chatId, store);
      store.start();
    }
    return store;
  }

  /** Forgets chats whose tab closed or that were deleted. */
  retain(chatIds: ReadonlySet<string>): void {
    for (const [id, store] of this.stores) {
      if (chatIds.has(id)) continue;
      store.dispose();
      this.stores.delete(id);
    }
  }

  /** After a reconnect: what was pushed while away was missed. */
  reloadAll(): void {
    for (const store of this.stores.values()) void store.load();
  }
}
