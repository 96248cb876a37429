import { describe, expect, it, vi } from 'vitest';
import { buildWorkbenchApi, type WorkbenchTransport } from '../../../shared/api';
import type { Envelope } from '../../../shared/errors';
import type { ChatMessage } from '../../../shared/messages';

type ChatMessagesInput = { chatId: string; beforeSeq?: number; limit?: number };
import { ChatStore, KEEP_ROWS, LOAD_AHEAD_ROWS, reloadRuns } from './chat-store';
import { MAX_ROWS } from './list-window';
import type { ExchangeRow } from './timeline';

const CHAT = '6f1c2d6e-3b7a-4d4e-9a55-0d3c5b2f9a10';
const EXCHANGES = 1_000;

/** EXCHANGES exchanges of a question and an answer; the last one's reply waits for a call. */
function longChat(): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let index = 0; index < EXCHANGES; index++) {
    const exchangeId = `x-${index}`;
    const seq = messages.length + 1;
    messages.push({ id: `u${index}`, chatId: CHAT, exchangeId, seq, createdAt: seq, role: 'user', text: `Q${index}` });
    messages.push({
      id: `a${index}`,
      chatId: CHAT,
      exchangeId,
      seq: seq + 1,
      createdAt: seq + 1,
      role: 'assistant',
      providerId: 'p',
      model: 'm',
      reply: { timestamp: 0, turns: [{ message: `Answer ${index}` }] },
      end: 'stop',
    });
  }
  return messages;
}

/** `chat.messages` as main answers it (the newest `limit` before `beforeSeq`), every request recorded. */
function pagedApi(messages: ChatMessage[]) {
  const requests: ChatMessagesInput[] = [];
  const transport: WorkbenchTransport = {
    async invoke(method, input): Promise<Envelope> {
      if (method === 'approvals.pending') return { ok: true, value: { approvals: [] } };
      if (method !== 'chat.messages') return { ok: false, error: { code: 'unknown_method', message: method } };
      const { beforeSeq, limit } = input as ChatMessagesInput;
      requests.push(input as ChatMessagesInput);
      const before = messages.filter((message) => message.seq < (beforeSeq ?? Number.MAX_SAFE_INTEGER));
      const page = before.slice(Math.max(0, before.length - (limit ?? before.length)));
      return {
        ok: true,
        value: { messages: page, hasMore: page.length < before.length, activity: { status: 'idle', exchangeId: null } },
      };
    },
    subscribe: () => () => undefined,
  };
  return { api: buildWorkbenchApi(transport), requests };
}

const loadedRows = (store: ChatStore): ExchangeRow[] =>
  store.getSnapshot().timeline.rows.filter((row) => !row.dropped) as ExchangeRow[];

/** Loads older pages until the store holds the chat's first exchange. */
async function loadEverything(store: ChatStore): Promise<void> {
  while (store.getSnapshot().hasMore) await store.loadOlder();
}

describe("the chat store's memory", () => {
  it('keeps the messages of the rows around the window only, and loads dropped ones again, the same, as it comes back', async () => {
    const chat = longChat();
    const { api, requests } = pagedApi(chat);
    const store = new ChatStore(api, CHAT);
    store.start();
    await vi.waitFor(() => expect(store.getSnapshot().status).toBe('ready'));
    await loadEverything(store);
    const rows = store.getSnapshot().timeline.rows;
    expect(rows).toHaveLength(EXCHANGES);
    const first = store.getSnapshot().firstItemIndex;
    const original = new Map(rows.map((row) => [row.exchangeId, row.messages]));
    store.cardStates.set('c1', 'reason', 'not that file');
    store.requestCardStates.set('r1', 'answer', { text: 'An edited answer.' });

    // The window at the oldest rows: the newer ones beyond KEEP_ROWS drop, except the newest exchange.
    store.keepAround({ start: first, end: first + MAX_ROWS });
    let kept = loadedRows(store);
    expect(kept.length).toBe(MAX_ROWS + KEEP_ROWS + 1);
    expect(kept.at(-1)?.exchangeId).toBe(`x-${EXCHANGES - 1}`);
    expect(store.getSnapshot().timeline.rows).toHaveLength(EXCHANGES);
    expect(store.getSnapshot().firstItemIndex).toBe(first);

    // The window back at the end: the rows there load again, in one request per run of neighbouring rows, the same
    // messages as before; the oldest rows drop.
    const before = requests.length;
    const end = first + EXCHANGES;
    store.keepAround({ start: end - MAX_ROWS, end });
    await vi.waitFor(() => expect(store.getSnapshot().timeline.rows.at(-2)?.dropped).toBeUndefined());
    const reloads = requests.slice(before);
    expect(reloads).toHaveLength(1);
    const shown = store.getSnapshot().timeline.rows.slice(EXCHANGES - MAX_ROWS - LOAD_AHEAD_ROWS);
    expect(shown.every((row) => row.dropped === undefined)).toBe(true);
    for (const row of shown) expect(row.messages).toEqual(original.get(row.exchangeId));
    kept = loadedRows(store);
    expect(kept.length).toBeLessThanOrEqual(MAX_ROWS + KEEP_ROWS + LOAD_AHEAD_ROWS);
    expect(store.getSnapshot().timeline.rows[0]?.dropped).toEqual({ firstSeq: 1, lastSeq: 2, count: 2 });
    // What the person gave waiting cards is not in the rows.
    expect(store.cardStates.get('c1', 'reason')).toBe('not that file');
    expect(store.requestCardStates.get('r1', 'answer')?.text).toBe('An edited answer.');

    // Scrolling back up to the first rows loads them again.
    store.keepAround({ start: first, end: first + MAX_ROWS });
    await vi.waitFor(() => expect(store.getSnapshot().timeline.rows[0]?.dropped).toBeUndefined());
    for (const row of store.getSnapshot().timeline.rows.slice(0, MAX_ROWS + LOAD_AHEAD_ROWS))
      expect(row.messages).toEqual(original.get(row.exchangeId));
  });

  it('a dropped row comes back whole when the window reaches it again', async () => {
    const chat = longChat();
    const { api } = pagedApi(chat);
    const store = new ChatStore(api, CHAT);
    store.start();
    await vi.waitFor(() => expect(store.getSnapshot().status).toBe('ready'));
    await loadEverything(store);
    const first = store.getSnapshot().firstItemIndex;
    store.keepAround({ start: first + EXCHANGES - MAX_ROWS, end: first + EXCHANGES });
    const dropped = store.getSnapshot().timeline.rows[3] as ExchangeRow;
    expect(dropped.dropped).toBeDefined();
    store.keepAround({ start: first, end: first + MAX_ROWS });
    await vi.waitFor(() => expect(store.getSnapshot().timeline.rows[3]?.dropped).toBeUndefined());
    expect(store.getSnapshot().timeline.rows[3]?.messages).toHaveLength(2);
  });
});

describe('reloadRuns', () => {
  const dropped = (firstSeq: number, count = 2): ExchangeRow => ({
    exchangeId: `x${firstSeq}`,
    messages: [],
    dropped: { firstSeq, lastSeq: firstSeq + count - 1, count },
  });
  it('makes one run of neighbouring rows, and splits at a gap or at the request limit', () => {
    const runs = reloadRuns([
      { at: 0, row: dropped(1) },
      { at: 1, row: dropped(3) },
      { at: 3, row: dropped(7) },
      { at: 4, row: dropped(9, 999) },
    ]);
    expect(runs.map((run) => run.map((row) => row.exchangeId))).toEqual([['x1', 'x3'], ['x7'], ['x9']]);
  });
});
