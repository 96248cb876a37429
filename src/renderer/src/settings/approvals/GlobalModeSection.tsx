import { useState } from 'react';
import type { GlobalApprovalMode, PolicyUpdate, PolicyView } from '../../../../shared/approval';
import { Modal, Notice, errorText } from '../common';
import { WarningIcon } from '../../components/icons';
import { DefaultNote, LockNote, isDefaulted } from './organisation';
import { MODE_LABELS } from './organisation-reasons';

const MODES: readonly { mode: GlobalApprovalMode; label: string; description: string }[] = [
  {
    mode: 'ask',
    label: MODE_LABELS.ask,
    description: 'Unless a rule, a server or a tool setting says otherwise. The safest choice.',
  },
  {
    mode: 'auto-approve-read-only-trusted',
    label: MODE_LABELS['auto-approve-read-only-trusted'],
    description:
      'Tools that declare readOnlyHint run without asking, on servers whose annotations you trust. Everything else asks.',
  },
  {
    mode: 'never-ask',
    label: MODE_LABELS['never-ask'],
    description: 'Every tool runs without asking, as if this feature did not exist. Only deny rules still apply.',
  },
];

export function GlobalModeSection({
  view,
  update,
}: {
  view: PolicyView;
  update(change: PolicyUpdate): Promise<PolicyView>;
}): React.JSX.Element {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const current = view.policy.mode;
  const neverAskBlocked = view.managed?.disallowNeverAsk === true;
  const locked = view.managed?.locked.mode !== undefined;

  const choose = (mode: GlobalApprovalMode): void => {
    if (mode === current) return;
    if (mode === 'never-ask') {
      setConfirming(true);
      return;
    }
    void apply(mode);
  };
  const apply = async (mode: GlobalApprovalMode): Promise<void> => {
    setError(null);
    try {
      await update({ mode });
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section className="settings-section" aria-labelledby="global-mode-title">
      <div className="section-title-row">
        <h3 id="global-mode-title">Global mode</h3>
        {locked ? <LockNote id="global-mode-lock" /> : isDefaulted(view, 'mode') && <DefaultNote />}
      </div>
      <div
        role="radiogroup"
        aria-labelledby="global-mode-title"
        aria-describedby={locked ? 'global-mode-lock' : undefined}
        className="mode-options"
      >
        {MODES.map((option) => (
          <label
            key={option.mode}
            className={`mode-option${current === option.mode ? ' is-selected' : ''}${option.mode === 'never-ask' ? ' is-danger' : ''}${locked ? ' is-locked' : ''}`}
          >
            <input
              type="radio"
              name="global-mode"
              value={option.mode}
              checked={current === option.mode}
              disabled={locked}
              aria-describedby={locked ? 'global-mode-lock' : undefined}
              onChange={() => choose(option.mode)}
            />
            <span>
              <span className="mode-label">{option.label}</span>
              <span className="muted small mode-description">{option.description}</span>
            </span>
          </label>
        ))}
      </div>
      {current === 'never-ask' && (
        <div className="danger-banner" role="alert" data-testid="never-ask-warning">
          <WarningIcon size={18} />
          <div>
            <strong>Approvals are off.</strong> Every tool call from every chat runs without asking you — including
            tools that write, delete or reach the internet. Malicious servers or conversation content can act through
            your tools unchecked.
            {neverAskBlocked && ' Your organisation’s policy ignores this setting, so calls still ask.'}
          </div>
        </div>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {confirming && (
        <Modal
          title="Turn approvals off?"
          onClose={() => setConfirming(false)}
          actions={
            <>
              <button type="button" className="button" onClick={() => setConfirming(false)} autoFocus>
                Keep asking
              </button>
              <button
                type="button"
                className="button button-danger"
                onClick={() => {
                  setConfirming(false);
                  void apply('never-ask');
                }}
              >
                Turn approvals off
              </button>
            </>
          }
        >
          <p>
            Every tool call will run without asking — writing files, deleting, sending data out. Only deny rules still
            stop a call. You can switch back at any time.
          </p>
        </Modal>
      )}
    </section>
  );
}
