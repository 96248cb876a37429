import type { AppFrameSlotInput } from '../../shared/mcp-apps';
import { WorkbenchError } from '../errors';

/** The view a CSP report of a proxy frame is recorded against (docs/user/mcp-apps.md#in-the-audit-log). */
export interface FrameView {
  chatId: string;
  viewCallId: string;
}

/**
 * The pool proxy frames' slots (docs/user/mcp-apps.md#in-the-audit-log): a frame the page made before it knew its view
 * carries a random slot id in its address, and its frame's reports come with that id. The page says through the
 * contract which view a slot serves once it takes the frame for it: a slot is bound once, never moved to another view,
 * and a report for a slot no view was bound to is dropped. Nothing else binds: the contract is the app page's alone.
 */
export interface AppFrameSlots {
  /** Binds `slot` to its view; a slot already bound, or one past `APP_FRAME_SLOTS_MAX`, is refused (`conflict`). */
  bind(input: AppFrameSlotInput): void;
  /** The view `slot` serves, or undefined when it was never bound. */
  viewOf(slot: string): FrameView | undefined;
}

/** The most slots bound in one run; further bindings are refused and the page loads the view's own frame. */
export const APP_FRAME_SLOTS_MAX = 10_000;

export function createAppFrameSlots(): AppFrameSlots {
  const bound = new Map<string, FrameView>();
  return {
    bind({ slot, chatId, viewCallId }) {
      if (bound.has(slot))
        throw new WorkbenchError('conflict', 'That view frame already serves a view; it cannot serve another.');
      if (bound.size >= APP_FRAME_SLOTS_MAX)
        throw new WorkbenchError('conflict', 'Too many view frames were made in this run; the view loads its own.');
      bound.set(slot, { chatId, viewCallId });
    },
    viewOf(slot) {
      return bound.get(slot);
    },
  };
}
