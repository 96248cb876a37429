import type { WorkbenchApi } from '../../../shared/api';
import type { Chat, ChatChange } from '../../../shared/chat';
import { isWorkbenchErrorData } from '../../../shared/error-data';

export type ChatsStatus = 'loading' | 'ready' | 'failed';

export interface ChatsState {
  readonly status: ChatsStatus;
  readonly chats: readonly Chat[];
  readonly selectedId: string | null;
  /** The chats open as tabs, in tab order; the selected chat is always one of them. */
  readonly openIds: readonly string[];
  /** The last error a person should see (a failed rename, a lost connection); cleared on the next success. */
  readonly error: string | null;
}

const SELECTED_KEY = 'aiwb.selectedChat';
const TABS_KEY = 'aiwb.openTabs';

/** The chat list of one window: loaded once, then kept current by `chat.onDidChange` from any client. */
export class ChatsStore {
  private state: ChatsState = {
    status: 'loading',
    chats: [],
    selectedId: readSelected(),
    openIds: readTabs(),
    error: null,
  };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly api: WorkbenchApi) {}

  /** Follows changes made by any client (another window, the CLI); returns the function that stops it. */
  follow(): () => void {
    return this.api.chat.onDidChange((change) => this.apply(change));
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): ChatsState => this.state;

  async load(): Promise<void> {
    try {
      const chats = sortChats((await this.api.chat.list()).chats);
      const known = new Set(chats.map((chat) => chat.id));
      const openIds = this.state.openIds.filter((id) => known.has(id));
      const selectedId =
        this.state.selectedId && known.has(this.state.selectedId)
          ? this.state.selectedId
          : (openIds[0] ?? chats[0]?.id ?? null);
      this.set({ status: 'ready', chats, selectedId, openIds: withTab(openIds, selectedId), error: null });
    } catch (error) {
      this.set({ status: this.state.status === 'ready' ? 'ready' : 'failed', error: describe(error) });
    }
  }

  /** Shows a chat, opening a tab for it when it has none. */
  select(id: string | null): void {
    this.set({ selectedId: id, openIds: withTab(this.state.openIds, id) });
  }

  /** Closes a chat's tab; the tab to its right (else its left) is shown when it was the selected one. */
  closeTab(id: string): void {
    const index = this.state.openIds.indexOf(id);
    if (index < 0) return;
    const openIds = this.state.openIds.filter((open) => open !== id);
    const selectedId =
      this.state.selectedId === id ? (openIds[Math.min(index, openIds.length - 1)] ?? null) : this.state.selectedId;
    this.set({ openIds, selectedId });
  }

  /** Moves a tab to another place in the tab bar. */
  moveTab(id: string, toIndex: number): void {
    const openIds = this.state.openIds.filter((open) => open !== id);
    if (openIds.length === this.state.openIds.length) return;
    openIds.splice(Math.max(0, Math.min(toIndex, openIds.length)), 0, id);
    this.set({ openIds });
  }

  /** Creates a chat and selects it. Resolves false (with `error` set) when it failed. */
  create(): Promise<boolean> {
    return this.run(async () => {
      const chat = await this.api.chat.create();
      this.apply({ kind: 'created', chat });
      this.select(chat.id);
    });
  }

  rename(id: string, title: string): Promise<boolean> {
    return this.run(async () => this.apply({ kind: 'updated', chat: await this.api.chat.rename({ id, title }) }));
  }

  remove(id: string): Promise<boolean> {
    return this.run(async () => {
      await this.api.chat.delete({ id });
      this.apply({ kind: 'deleted', id });
    });
  }

  dismissError(): void {
    this.set({ error: null });
  }

  private async run(action: () => Promise<void>): Promise<boolean> {
    try {
      await action();
      if (this.state.error) this.set({ error: null });
      return true;
    } catch (error) {
      this.set({ error: describe(error) });
      return false;
    }
  }

  /** Applying a change twice (our own call, then its event) is harmless. */
  private apply(change: ChatChange): void {
    const others = this.state.chats.filter(
      (chat) => chat.id !== (change.kind === 'deleted' ? change.id : change.chat.id),
    );
    if (change.kind === 'deleted') {
      const tabIndex = this.state.openIds.indexOf(change.id);
      const openIds = this.state.openIds.filter((id) => id !== change.id);
      let selectedId = this.state.selectedId;
      if (selectedId === change.id) {
        // The neighbouring tab, else the neighbouring chat of the list.
        const index = this.state.chats.findIndex((chat) => chat.id === change.id);
        selectedId =
          openIds[Math.min(Math.max(tabIndex, 0), openIds.length - 1)] ??
          others[Math.min(Math.max(index, 0), others.length - 1)]?.id ??
          null;
      }
      this.set({ chats: others, selectedId, openIds: withTab(openIds, selectedId) });
    } else {
      // A chat that arrives while none is open (the welcome screen) is opened; otherwise the selection stays.
      this.set({
        chats: sortChats([...others, change.chat]),
        ...(this.state.selectedId === null
          ? { selectedId: change.chat.id, openIds: withTab(this.state.openIds, change.chat.id) }
          : {}),
      });
    }
  }

  private set(patch: Partial<ChatsState>): void {
    this.state = { ...this.state, ...patch };
    if ('selectedId' in patch) writeSelected(this.state.selectedId);
    if ('openIds' in patch) writeTabs(this.state.openIds);
    for (const listener of [...this.listeners]) listener();
  }
}

/** Newest first, in the order the server lists them (chat-repository.ts: `ORDER BY updated_at DESC, created_at DESC, id`). */
function sortChats(chats: readonly Chat[]): Chat[] {
  // Ties go by id in code-unit order, as SQLite's binary collation has them (localeCompare would differ, and is slow).
  return [...chats].sort(
    (a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

function withTab(openIds: readonly string[], id: string | null): readonly string[] {
  return id === null || openIds.includes(id) ? openIds : [...openIds, id];
}

function describe(error: unknown): string {
  if (isWorkbenchErrorData(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function readSelected(): string | null {
  try {
    return localStorage.getItem(SELECTED_KEY);
  } catch {
    return null;
  }
}

function writeSelected(id: string | null): void {
  try {
    if (id) localStorage.setItem(SELECTED_KEY, id);
    else localStorage.removeItem(SELECTED_KEY);
  } catch {
    // storage unavailable (private mode): selection just is not remembered
  }
}

function readTabs(): string[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(TABS_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

function writeTabs(ids: readonly string[]): void {
  try {
    localStorage.setItem(TABS_KEY, JSON.stringify(ids));
  } catch {
    // storage unavailable: tabs are just not restored
  }
}
