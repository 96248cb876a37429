import { createLocalFlag, useLocalFlag } from '../../state/local-flag';

/** Set once the person dismissed the explanation (this browser profile or app window's storage). */
const introSeen = createLocalFlag('aiwb.approvalIntroSeen');

/**
 * What an approval card is and what each button does, shown once below the first card a person meets (
 * docs/user/approvals.md "Your first approval"); "Got it" dismisses it for good.
 */
export function ApprovalIntro(): React.JSX.Element | null {
  const hidden = useLocalFlag(introSeen);
  if (hidden) return null;
  return (
    <section className="approval-intro" aria-labelledby="approval-intro-title" data-testid="approval-intro">
      <h3 id="approval-intro-title">Your first approval</h3>
      <p>
        The model wants to use a tool. Nothing runs until you decide — the card above shows the tool, its server and the
        exact arguments.
      </p>
      <dl>
        <div>
          <dt>Allow for this chat</dt>
          <dd>runs it, and this tool&apos;s later calls in this chat run without asking.</dd>
        </div>
        <div>
          <dt>Allow once</dt>
          <dd>runs this call only; the next one asks again.</dd>
        </div>
        <div>
          <dt>Deny</dt>
          <dd>it does not run; the model is told, and goes on without it.</dd>
        </div>
        <div>
          <dt>More…</dt>
          <dd>remember a decision as a rule or setting, which you can undo in Settings → Approvals.</dd>
        </div>
      </dl>
      <p className="muted small">
        Every decision is written to the audit log. You can edit the arguments before allowing.
      </p>
      <button type="button" className="button" onClick={() => introSeen.set()}>
        Got it
      </button>
    </section>
  );
}
