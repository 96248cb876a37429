import { useState, useSyncExternalStore } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import { errorText } from '../../../shared/error-data';
import { rememberedLabel, rememberedStore, undoOf } from '../state/remembered';

/**
 * After a card remembered something (docs/user/approvals.md "Remember from the card"): says what, with Undo (asking
 * again) and the way to Settings, where the rule or setting is highlighted. A live region, so a screen reader hears
 * that the policy changed.
 */
export function RememberedNotice({ api, chatId }: { api: WorkbenchApi; chatId: string }): React.JSX.Element | null {
  const remembered = useSyncExternalStore(rememberedStore.subscribe, rememberedStore.getSnapshot);
  const [problem, setProblem] = useState<string | null>(null);
  const [undone, setUndone] = useState<number | null>(null);
  if (!remembered || remembered.chatId !== chatId) return null;
  const isUndone = undone === remembered.at;
  return (
    <div className="remembered-notice" role="status" data-testid="remembered-notice">
      <span>
        {isUndone ? 'Undone — it asks again: ' : 'Remembered: '}
        <strong>{rememberedLabel(remembered)}</strong>
      </span>
      {!isUndone && (
        <>
          <button type="button" className="chat-link" onClick={() => rememberedStore.requestOpenSettings()}>
            Show in Settings
          </button>
          <button
            type="button"
            className="chat-link"
            onClick={() => {
              setProblem(null);
              api.policy.update(undoOf(remembered)).then(
                () => setUndone(remembered.at),
                (error: unknown) => setProblem(errorText(error)),
              );
            }}
          >
            Undo
          </button>
        </>
      )}
      <button
        type="button"
        className="chat-link"
        onClick={() => rememberedStore.set(null)}
        aria-label="Dismiss this notice"
      >
        Dismiss
      </button>
      {problem && <span className="field-problem">{problem}</span>}
    </div>
  );
}
