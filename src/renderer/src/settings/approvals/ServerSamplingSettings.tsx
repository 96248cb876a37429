import { useId, useState } from 'react';
import type { PolicyUpdate } from '../../../../shared/approval';
import {
  DEFAULT_SAMPLING_TOKEN_BUDGET,
  MAX_SAMPLING_TOKEN_BUDGET,
  SAMPLING_POLICIES,
} from '../../../../shared/closed-sets';
import type { SamplingPolicy } from '../../../../shared/server-request-views';

const SAMPLING_LABELS: Readonly<Record<SamplingPolicy, string>> = {
  ask: 'Ask me each time',
  allow: 'Allow without asking',
  deny: 'Refuse without asking',
};

/**
 * What a server may ask of the chat's model (sampling): ask, allow or refuse, and how many tokens the model may
 * write for it per chat (docs/user/server-requests.md#sampling). Deny rules on the server's `sampling` still win.
 */
export function ServerSamplingSettings({
  server,
  sampling,
  budget,
  locked,
  describedBy,
  apply,
}: {
  server: string;
  sampling: SamplingPolicy | undefined;
  budget: number | undefined;
  /** Locked by the organisation: `describedBy` names the note that says so. */
  locked: boolean;
  describedBy?: string | undefined;
  /** Resolves with why the change was refused or failed, or null once it is made. */
  apply(change: PolicyUpdate): Promise<string | null>;
}): React.JSX.Element {
  const budgetId = useId();
  // What is typed until it is applied (Enter or leaving the field); null shows the setting.
  const [typed, setTyped] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [choiceProblem, setChoiceProblem] = useState<string | null>(null);
  const current = budget ?? DEFAULT_SAMPLING_TOKEN_BUDGET;
  const commit = async (): Promise<void> => {
    if (typed === null) return;
    const tokens = Number(typed);
    if (!Number.isInteger(tokens) || tokens < 0 || tokens > MAX_SAMPLING_TOKEN_BUDGET) {
      setProblem(`A whole number of tokens from 0 to ${MAX_SAMPLING_TOKEN_BUDGET.toLocaleString('en')}.`);
      return;
    }
    setProblem(null);
    if (tokens === current) {
      setTyped(null);
      return;
    }
    // What was typed stays in the field until the change is made; a refusal says why beside it.
    const refused = await apply({ servers: { [server]: { samplingTokenBudget: tokens } } });
    if (refused) setProblem(refused);
    else setTyped(null);
  };
  return (
    <div className="sampling-settings" role="group" aria-label={`When ${server} asks the model`}>
      <label className="sampling-setting">
        <span>When {server} asks the chat’s model to write for it (sampling)</span>
        <select
          className={`setting-select is-${sampling ?? 'ask'}`}
          value={sampling ?? 'ask'}
          disabled={locked}
          aria-describedby={describedBy}
          aria-invalid={choiceProblem !== null}
          onChange={(event) => {
            setChoiceProblem(null);
            void apply({ servers: { [server]: { sampling: event.target.value as SamplingPolicy } } }).then(
              setChoiceProblem,
            );
          }}
        >
          {SAMPLING_POLICIES.map((option) => (
            <option key={option} value={option}>
              {SAMPLING_LABELS[option]}
            </option>
          ))}
        </select>
      </label>
      <label className="sampling-setting" htmlFor={budgetId}>
        <span>Most tokens the model writes for {server} per chat</span>
        <input
          id={budgetId}
          type="number"
          inputMode="numeric"
          min={0}
          max={MAX_SAMPLING_TOKEN_BUDGET}
          step={1000}
          disabled={locked}
          aria-describedby={describedBy}
          aria-invalid={problem !== null}
          value={typed ?? String(current)}
          onChange={(event) => setTyped(event.target.value)}
          onBlur={() => void commit()}
          onKeyDown={(event) => {
            if (event.key === 'Enter') void commit();
            if (event.key === 'Escape') {
              setTyped(null);
              setProblem(null);
            }
          }}
        />
      </label>
      {choiceProblem && (
        <p className="field-problem" role="alert" data-testid="setting-problem">
          {choiceProblem}
        </p>
      )}
      {problem && (
        <p className="field-problem" role="alert" data-testid="setting-problem">
          {problem}
        </p>
      )}
    </div>
  );
}
