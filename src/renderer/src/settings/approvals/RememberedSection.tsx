import { useState, useSyncExternalStore } from 'react';
import type { PolicyUpdate, PolicyView } from '../../../../shared/approval';
import { rememberedLabel, rememberedStore, undoOf } from '../../state/remembered';
import { errorText } from '../common';

/**
 * Settings show the result of "remember" on a card (docs/user/approvals.md "Remember from the card"), or of an Insights
 * suggestion accepted (docs/user/insights.md#suggestions): what was remembered, highlighted below, with Undo, which
 * puts asking back.
 */
export function RememberedSection({
  update,
}: {
  view: PolicyView;
  update(change: PolicyUpdate): Promise<PolicyView>;
}): React.JSX.Element | null {
  const remembered = useSyncExternalStore(rememberedStore.subscribe, rememberedStore.getSnapshot);
  const [problem, setProblem] = useState<string | null>(null);
  if (!remembered) return null;
  return (
    <div className="notice notice-info remembered-setting" role="status" data-testid="remembered-setting">
      <span>
        {remembered.source === 'insights'
          ? 'Just accepted from an Insights suggestion'
          : 'Just remembered from an approval card'}
        : <strong>{rememberedLabel(remembered)}</strong> (highlighted below).
      </span>
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          setProblem(null);
          update(undoOf(remembered)).then(
            () => rememberedStore.set(null),
            (error: unknown) => setProblem(errorText(error)),
          );
        }}
      >
        Undo
      </button>
      {problem && <span className="field-problem">{problem}</span>}
    </div>
  );
}
