import { useState } from 'react';
import { MAX_APPROVAL_TIMEOUT_SECONDS, type PolicyUpdate, type PolicyView } from '../../../../shared/approval';
import { Field, Notice } from '../common';
import { fieldProblems } from '../field-problems';
import { DefaultNote, LockNote, isDefaulted } from './organisation';

/** `5 minutes`, `1 hour 30 minutes`, `45 seconds`. */
export function describeSeconds(total: number): string {
  if (total === 0) return 'waits until you answer';
  const parts: string[] = [];
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  let rest = total;
  for (const [size, unit] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}${count === 1 ? '' : 's'}`);
  }
  return parts.slice(0, 2).join(' ');
}

export function TimeoutSection({
  view,
  update,
}: {
  view: PolicyView;
  update(change: PolicyUpdate): Promise<PolicyView>;
}): React.JSX.Element {
  const saved = view.policy.timeoutSeconds;
  const locked = view.managed?.locked.timeoutSeconds !== undefined;
  const [value, setValue] = useState(String(saved));
  const [problem, setProblem] = useState<string | undefined>();
  const [savedNote, setSavedNote] = useState(false);
  const [shown, setShown] = useState(saved);
  if (shown !== saved) {
    // The policy changed (here or elsewhere): show the new value.
    setShown(saved);
    setValue(String(saved));
  }

  const save = async (): Promise<void> => {
    setSavedNote(false);
    const seconds = Number(value);
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_APPROVAL_TIMEOUT_SECONDS) {
      setProblem(
        `Enter whole seconds from 0 to ${MAX_APPROVAL_TIMEOUT_SECONDS.toLocaleString()} (a week); 0 waits forever.`,
      );
      return;
    }
    setProblem(undefined);
    try {
      await update({ timeoutSeconds: seconds });
      setSavedNote(true);
    } catch (failure) {
      setProblem(Object.values(fieldProblems(failure)).join(' '));
    }
  };

  return (
    <section className="settings-section" aria-labelledby="timeout-title">
      <div className="section-title-row">
        <h3 id="timeout-title">Approval timeout</h3>
        {locked ? <LockNote id="timeout-lock" /> : isDefaulted(view, 'timeoutSeconds') && <DefaultNote />}
      </div>
      <form
        noValidate
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Field
          label="Seconds a call waits for you"
          hint={`Then it ends as “timed out” (never as a denial). Now: ${describeSeconds(saved)}. 0 waits forever.`}
          problem={problem}
        >
          {(props) => (
            <div className="inline-controls">
              <input
                {...props}
                aria-describedby={
                  locked
                    ? [props['aria-describedby'], 'timeout-lock'].filter(Boolean).join(' ')
                    : props['aria-describedby']
                }
                type="number"
                min={0}
                max={MAX_APPROVAL_TIMEOUT_SECONDS}
                step={1}
                value={value}
                disabled={locked}
                onChange={(event) => setValue(event.target.value)}
              />
              <button type="submit" className="button" disabled={locked || value === String(saved)}>
                Save
              </button>
            </div>
          )}
        </Field>
      </form>
      {savedNote && (
        <Notice kind="success">
          Saved: a call now{' '}
          {describeSeconds(saved) === 'waits until you answer'
            ? 'waits until you answer'
            : `waits ${describeSeconds(saved)}`}
          .
        </Notice>
      )}
    </section>
  );
}
