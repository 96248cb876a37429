import { useId } from 'react';
import type { ToolCallRequest } from '../../../../shared/approval';
import type { ChatState, ChatStore } from '../chat-store';
import { DROPPED_CLICK_WORDS, useSteadyClicks } from '../steady-clicks';
import { barCount } from './bar-count';

export interface ApprovalBarProps {
  store: ChatStore;
  state: ChatState;
  /** The calls of the last exchange that wait for a decision (`pendingRequests`). */
  waiting: ToolCallRequest[];
}

/** Above the message box while calls wait: how many, and Allow all once / Deny all when there are several. */
export function ApprovalBar({ store, state, waiting }: ApprovalBarProps): React.JSX.Element {
  // It appears when a call starts waiting, where the person may be about to click: a click must be aimed at it.
  const steady = useSteadyClicks();
  const blockedId = useId();
  const undecided = waiting.filter((request) => !state.drafts.has(request.toolCallId)).length;
  // Allow all once is off while an undecided call's edit is invalid (the store refuses it too, and says why).
  const blocked = waiting.find(
    (request) => !state.drafts.has(request.toolCallId) && state.edits.get(request.toolCallId)?.ok === false,
  );
  return (
    <div className="approval-bar" role="group" aria-label="Pending tool calls" onClickCapture={steady.onClickCapture}>
      <span className="approval-bar-count">
        {barCount(waiting.length, waiting.length - undecided, state.submitting)}
      </span>
      {undecided > 0 && waiting.length > 1 && (
        <span className="approval-bar-actions">
          {blocked && (
            <span id={blockedId} className="approval-bar-blocked">
              Fix the arguments of {blocked.toolName} first
            </span>
          )}
          <button
            type="button"
            className="button"
            onClick={() => store.decideAll('TOOL_CALL_DECISION_ALLOW_ONCE')}
            title="Allow all once (Alt+Enter)"
            aria-keyshortcuts="Alt+Enter"
            {...(blocked ? { 'aria-disabled': true, 'aria-describedby': blockedId } : {})}
          >
            Allow all once
          </button>
          <button
            type="button"
            className="button button-danger-soft"
            onClick={() => store.decideAll('TOOL_CALL_DECISION_DENY')}
            title="Deny all (Alt+Escape)"
            aria-keyshortcuts="Alt+Escape"
          >
            Deny all
          </button>
        </span>
      )}
      {steady.dropped && <p className="steady-notice">{DROPPED_CLICK_WORDS}</p>}
    </div>
  );
}
