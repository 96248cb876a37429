import type { PolicyUpdate, RememberAction } from '../../../shared/approval';
import { REMEMBER_WORDS } from '../../../shared/decisions';

/**
 * What the person just remembered from an approval card (docs/user/approvals.md "Remember from the card"), so that
 * Settings › Approvals can highlight it with Undo, and the chat can point there. One per page; a newer one replaces it.
 */
export interface Remembered {
  readonly chatId: string;
  readonly serverName: string;
  readonly toolName: string;
  readonly action: RememberAction;
  readonly at: number;
  /** Where it was remembered: an approval card (the default), or an accepted Insights suggestion (docs/user/insights.md#suggestions). */
  readonly source?: 'card' | 'insights';
}

/** The label of what was remembered: "Always allow this tool: Files.write_file". */
export function rememberedLabel(remembered: Remembered): string {
  const target =
    remembered.action.kind === 'server' ? remembered.serverName : `${remembered.serverName}.${remembered.toolName}`;
  // A suggestion's rule allows the calls seen only, not calls like them.
  if (remembered.source === 'insights') return `Allow without asking, the calls seen only: ${target}`;
  return `${REMEMBER_WORDS[remembered.action.kind]}: ${target}`;
}

/**
 * The change that puts asking back: the rule removed, the tool back to its server's setting, the server no longer
 * auto-approving (docs/user/approvals.md "Remember from the card": Undo).
 */
export function undoOf(remembered: Remembered): PolicyUpdate {
  switch (remembered.action.kind) {
    case 'rule':
      return { rules: { remove: [remembered.action.id] } };
    case 'tool':
      return { tools: { [remembered.serverName]: { [remembered.toolName]: 'inherit' } } };
    case 'server':
      return { servers: { [remembered.serverName]: { autoApprove: false } } };
  }
}

type Listener = () => void;

class RememberedStore {
  private current: Remembered | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly openListeners = new Set<Listener>();

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): Remembered | null => this.current;

  set(remembered: Remembered | null): void {
    this.current = remembered;
    for (const listener of this.listeners) listener();
  }

  /** "Show in Settings": the app opens Settings › Approvals. */
  requestOpenSettings(): void {
    for (const listener of this.openListeners) listener();
  }

  onDidRequestOpenSettings(listener: Listener): () => void {
    this.openListeners.add(listener);
    return () => this.openListeners.delete(listener);
  }
}

export const rememberedStore = new RememberedStore();
