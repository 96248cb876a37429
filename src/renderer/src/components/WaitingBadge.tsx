import { waitingLabel } from '../state/waiting-store';

/** How many calls wait for a decision in a chat, beside its tab or its entry in the chat list (nothing when none). */
export function WaitingBadge({ count }: { count: number }): React.JSX.Element | null {
  if (count === 0) return null;
  const label = waitingLabel(count);
  return (
    <span className="waiting-badge" title={label} data-testid="waiting-badge">
      <span aria-hidden="true">{count}</span>
      <span className="visually-hidden">{label}</span>
    </span>
  );
}
