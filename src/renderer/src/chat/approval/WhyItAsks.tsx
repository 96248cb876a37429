import { useId, useState } from 'react';
import type { PolicyExplanation, ToolCallRequest } from '../../../../shared/approval';
import { errorText } from '../../../../shared/error-data';
import { rememberedStore } from '../../state/remembered';
import { useChatContext } from '../chat-context';
import { STEP_RESULT_WORDS, STEP_WORDS, asksBecause } from './why-words';

/**
 * On every card, the one step of the decision order that made it ask (docs/user/approvals.md, "In the window"), with the
 * way to Settings where that rule or setting is changed, and the whole trace a click away — the CLI's `?`.
 */
export function WhyItAsks({ request, chatId }: { request: ToolCallRequest; chatId: string }): React.JSX.Element {
  const { api } = useChatContext();
  const traceId = useId();
  const [open, setOpen] = useState(false);
  const [trace, setTrace] = useState<PolicyExplanation | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const toggle = (): void => {
    setOpen(!open);
    if (open || trace) return;
    setProblem(null);
    api.policy
      .explain({ server: request.serverName, tool: request.toolName, args: request.args, chatId })
      .then(setTrace, (error: unknown) => setProblem(errorText(error)));
  };
  return (
    <div className="approval-why" data-testid="approval-why">
      <p className="approval-why-line">
        <span>{asksBecause(request.decision.reason)}</span>{' '}
        <button type="button" className="chat-link" aria-expanded={open} aria-controls={traceId} onClick={toggle}>
          {open ? 'Hide the trace' : 'Full trace'}
        </button>{' '}
        <button type="button" className="chat-link" onClick={() => rememberedStore.requestOpenSettings()}>
          Change in Settings
        </button>
      </p>
      {open && (
        <div id={traceId}>
          {problem && <p className="field-problem">{problem}</p>}
          {!trace && !problem && <p className="muted small">Loading the trace…</p>}
          {trace && (
            <ol className="approval-trace" aria-label="The decision order, as the policy stands now">
              {trace.considered.map((step) => (
                <li key={`${step.step}-${step.kind}`} className={`approval-trace-step is-${step.result}`}>
                  <strong>{STEP_WORDS[step.kind]}</strong> — {STEP_RESULT_WORDS[step.result]}: {step.detail}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </div>
  );
}
