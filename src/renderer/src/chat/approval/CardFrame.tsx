import { forwardRef } from 'react';
import { APPROVAL_WARNING } from '../../../../shared/decisions';
import { WarningIcon } from '../../components/icons';
import { DROPPED_CLICK_WORDS, type SteadyClicks } from '../steady-clicks';

export interface CardFrameProps extends Omit<React.HTMLAttributes<HTMLElement>, 'title' | 'onClickCapture'> {
  /** The title's element id (the card is labelled by it). */
  titleId: string;
  /** The question: "Allow tool call from Files?", "Allow Everything to use your model?" */
  title: React.ReactNode;
  /** Beside the title: the kind of request, risk badges, the time left. */
  badges?: React.ReactNode;
  /** The body's own class beside `approval-card`. */
  variant?: string;
  /** A click decides only what it was aimed at (steady-clicks.ts). */
  steady: SteadyClicks;
  children: React.ReactNode;
}

/**
 * The ONE frame of every card about something that waits on a person — a tool call, a server's sampling request, its
 * answer, a form, a page to open (docs/user/approvals.md, docs/user/server-requests.md): the question and its badges
 * at the top, the kind's body, and the notice of a click that was not taken. Each kind brings only its body.
 */
export const CardFrame = forwardRef<HTMLElement, CardFrameProps>(function CardFrame(
  { titleId, title, badges, variant, steady, children, className, ...section },
  ref,
) {
  return (
    <section
      ref={ref}
      className={['approval-card', variant, className].filter(Boolean).join(' ')}
      aria-labelledby={titleId}
      onClickCapture={steady.onClickCapture}
      {...section}
    >
      <header className="approval-head">
        <h3 id={titleId} className="approval-title">
          {title}
        </h3>
        <div className="approval-badges">{badges}</div>
      </header>
      {children}
      {steady.dropped && <p className="steady-notice">{DROPPED_CLICK_WORDS}</p>}
    </section>
  );
});

/** Seed 000's warning, the same on every card that asks before something acts. */
export function CardWarning(): React.JSX.Element {
  return (
    <>
      <p className="approval-warning">
        <WarningIcon size={14} /> {APPROVAL_WARNING}
      </p>
      <p className="approval-review">
        <strong>Review each action carefully before approving</strong>
      </p>
    </>
  );
}
