import type {
  AssistantChatMessage,
  ChatMessage,
  ChatStreamEvent,
  ToolCallRecord,
  Turn,
} from '../../../shared/messages';

/**
 * A chat as rows for the message list: ONE row per exchange (seed 000 "NEXT"). A user message starts an
 * exchange; every reply, approval message and notice until the next user message carries its id, so the row
 * shows the person's words and then one assistant message, however many replies approvals split it into.
 * Everything here is pure and keeps unchanged rows as the same objects, so the list re-renders only what changed.
 */
export interface ExchangeRow {
  readonly exchangeId: string;
  /** In `seq` order; empty while the row is dropped. */
  readonly messages: readonly ChatMessage[];
  /**
   * The row's messages were dropped from memory, far from what the list shows (docs/dev/chat-list.md, "What the
   * store holds"): which ones they were, to load them again as the list comes back to them.
   */
  readonly dropped?: DroppedMessages;
}

/** A dropped row's messages: `count` messages from `firstSeq` to `lastSeq`. */
export interface DroppedMessages {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly count: number;
}

export interface Timeline {
  readonly rows: readonly ExchangeRow[];
  /** exchangeId → index in `rows`. */
  readonly index: ReadonlyMap<string, number>;
}

export const EMPTY_TIMELINE: Timeline = { rows: [], index: new Map() };

export function timelineOf(messages: readonly ChatMessage[]): Timeline {
  const rows: { exchangeId: string; messages: ChatMessage[] }[] = [];
  const index = new Map<string, number>();
  for (const message of [...messages].sort((a, b) => a.seq - b.seq)) {
    const at = index.get(message.exchangeId);
    if (at === undefined) {
      index.set(message.exchangeId, rows.length);
      rows.push({ exchangeId: message.exchangeId, messages: [message] });
    } else (rows[at] as { messages: ChatMessage[] }).messages.push(message);
  }
  return { rows, index };
}

/** Older messages (a page loaded while scrolling up) in front of the timeline; an exchange cut by the page joins up. */
export function prependMessages(
  timeline: Timeline,
  older: readonly ChatMessage[],
): { timeline: Timeline; added: number } {
  if (older.length === 0) return { timeline, added: 0 };
  const front = timelineOf(older);
  const first = timeline.rows[0];
  const last = front.rows.at(-1);
  let rows: ExchangeRow[];
  if (first && last && first.exchangeId === last.exchangeId) {
    // A dropped row stays dropped, and takes in its older part: it is loaded again whole.
    const joined: ExchangeRow = first.dropped
      ? {
          exchangeId: first.exchangeId,
          messages: [],
          dropped: {
            firstSeq: Math.min(first.dropped.firstSeq, ...last.messages.map((message) => message.seq)),
            lastSeq: first.dropped.lastSeq,
            count: first.dropped.count + last.messages.length,
          },
        }
      : { exchangeId: first.exchangeId, messages: [...last.messages, ...first.messages] };
    rows = [...front.rows.slice(0, -1), joined, ...timeline.rows.slice(1)];
  } else rows = [...front.rows, ...timeline.rows];
  return { timeline: { rows, index: indexOf(rows) }, added: rows.length - timeline.rows.length };
}

/** Adds a message, or replaces the one with its id (a reply is replaced whole at the end of each turn). */
export function upsertMessage(timeline: Timeline, message: ChatMessage): Timeline {
  const at = timeline.index.get(message.exchangeId);
  if (at === undefined) {
    const rows = [...timeline.rows, { exchangeId: message.exchangeId, messages: [message] }];
    const index = new Map(timeline.index);
    index.set(message.exchangeId, rows.length - 1);
    return { rows, index };
  }
  const row = timeline.rows[at] as ExchangeRow;
  // A dropped row is loaded again whole, with this message, when the list comes back to it.
  if (row.dropped) return timeline;
  const existing = row.messages.findIndex((candidate) => candidate.id === message.id);
  let messages: ChatMessage[];
  if (existing >= 0) {
    messages = [...row.messages];
    messages[existing] = message;
  } else {
    messages = [...row.messages, message].sort((a, b) => a.seq - b.seq);
  }
  return replaceRow(timeline, at, { exchangeId: row.exchangeId, messages });
}

/** Applies a `text` or `tool-call` stream event to the reply it belongs to; unknown replies are ignored. */
export function applyStreamEvent(
  timeline: Timeline,
  event: Extract<ChatStreamEvent, { kind: 'text' | 'tool-call' }>,
): Timeline {
  const at = timeline.index.get(event.exchangeId);
  if (at === undefined) return timeline;
  const row = timeline.rows[at] as ExchangeRow;
  const position = row.messages.findIndex((message) => message.id === event.messageId);
  const message = row.messages[position];
  if (!message || message.role !== 'assistant') return timeline;
  const turns: Turn[] = [...message.reply.turns];
  while (turns.length <= event.turn) turns.push({});
  const turn = { ...(turns[event.turn] as Turn) };
  if (event.kind === 'text') turn.message = (turn.message ?? '') + event.delta;
  else turn.toolCalls = withCall(turn.toolCalls ?? [], event.call);
  turns[event.turn] = turn;
  const updated: AssistantChatMessage = { ...message, reply: { ...message.reply, turns } };
  const messages = [...row.messages];
  messages[position] = updated;
  return replaceRow(timeline, at, { exchangeId: row.exchangeId, messages });
}

function withCall(calls: readonly ToolCallRecord[], call: ToolCallRecord): ToolCallRecord[] {
  const at = calls.findIndex((candidate) => candidate.toolCallId === call.toolCallId);
  if (at < 0) return [...calls, call];
  const next = [...calls];
  next[at] = call;
  return next;
}

/**
 * The rows at `positions` with their messages dropped (docs/dev/chat-list.md, "What the store holds"); rows dropped
 * already or without messages stay as they are.
 */
export function dropRows(timeline: Timeline, positions: Iterable<number>): Timeline {
  let rows: ExchangeRow[] | null = null;
  for (const at of positions) {
    const row = timeline.rows[at];
    const first = row?.messages[0];
    if (!row || row.dropped || !first) continue;
    rows ??= [...timeline.rows];
    rows[at] = {
      exchangeId: row.exchangeId,
      messages: [],
      dropped: { firstSeq: first.seq, lastSeq: (row.messages.at(-1) as ChatMessage).seq, count: row.messages.length },
    };
  }
  return rows ? { rows, index: timeline.index } : timeline;
}

/** Dropped rows loaded again: each dropped row whose messages `messages` holds, all of them, takes them. */
export function restoreRows(timeline: Timeline, messages: readonly ChatMessage[]): Timeline {
  let rows: ExchangeRow[] | null = null;
  for (const loaded of timelineOf(messages).rows) {
    const at = timeline.index.get(loaded.exchangeId);
    const dropped = at === undefined ? undefined : timeline.rows[at]?.dropped;
    if (at === undefined || !dropped || loaded.messages.length !== dropped.count) continue;
    rows ??= [...timeline.rows];
    rows[at] = loaded;
  }
  return rows ? { rows, index: timeline.index } : timeline;
}

function replaceRow(timeline: Timeline, at: number, row: ExchangeRow): Timeline {
  const rows = [...timeline.rows];
  rows[at] = row;
  return { rows, index: timeline.index };
}

function indexOf(rows: readonly ExchangeRow[]): Map<string, number> {
  return new Map(rows.map((row, position) => [row.exchangeId, position]));
}

/** What one exchange row shows: the person's words, one assistant message made of every reply's turns, and notices. */
export interface ExchangeView {
  user: Extract<ChatMessage, { role: 'user' }> | undefined;
  /** Every turn of every reply, in order. */
  turns: readonly Turn[];
  /** Replies of the exchange, for their provider/model and state. */
  replies: readonly AssistantChatMessage[];
  /** The calls that wait for a person, by id (from the replies' `pendingToolCalls`). */
  pendingIds: ReadonlySet<string>;
  notices: readonly Extract<ChatMessage, { role: 'system' | 'error' }>[];
  /** The last reply still streams. */
  streaming: boolean;
}

export function viewOf(row: ExchangeRow): ExchangeView {
  let user: ExchangeView['user'];
  const replies: AssistantChatMessage[] = [];
  const notices: Extract<ChatMessage, { role: 'system' | 'error' }>[] = [];
  for (const message of row.messages) {
    if (message.role === 'user') user ??= message;
    else if (message.role === 'assistant') replies.push(message);
    else if (message.role === 'system' || message.role === 'error') notices.push(message);
  }
  const pendingIds = new Set(
    replies.flatMap((reply) => (reply.reply.pendingToolCalls ?? []).map((request) => request.toolCallId)),
  );
  const last = replies.at(-1);
  return {
    user,
    turns: replies.flatMap((reply) => reply.reply.turns),
    replies,
    pendingIds,
    notices,
    streaming: last !== undefined && last.end === undefined,
  };
}
