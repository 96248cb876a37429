import { useEffect, useId, useState } from 'react';
import type {
  ArgumentMatcher,
  RememberAction,
  RememberKind,
  RememberOffer,
  RememberOptions,
  ToolCallRequest,
} from '../../../../shared/approval';
import { REMEMBER_WORDS } from '../../../../shared/decisions';
import { errorText } from '../../../../shared/error-data';
import { Dialog } from '../../components/Dialog';
import type { ChatStore } from '../chat-store';

const MATCH_LABELS: Record<ArgumentMatcher['match'], string> = {
  glob: 'matches the glob',
  regex: 'matches the pattern',
  equals: 'is exactly',
  'one-of': 'is one of (a JSON list)',
};

/** A rule id the person can find again in Settings: `remembered-write_file-3k9x`. */
function ruleId(toolName: string): string {
  const name = toolName.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 40) || 'tool';
  return `remembered-${name}-${Math.random().toString(36).slice(2, 6)}`;
}

/**
 * The one confirmation of a remember action (docs/user/approvals.md "Remember from the card"): exactly what changes,
 * where to undo it, and for "calls like this" the suggested rule, editable and checked again by main on every change
 * before it can be saved.
 */
export function RememberDialog({
  store,
  request,
  kind,
  options,
  onClose,
}: {
  store: ChatStore;
  request: ToolCallRequest;
  kind: RememberKind;
  options: RememberOptions;
  onClose(): void;
}): React.JSX.Element {
  const [args, setArgs] = useState<ArgumentMatcher[]>(options.rule.args);
  const [offer, setOffer] = useState<RememberOffer>(options[kind]);
  const [checking, setChecking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const formId = useId();

  // The edited rule is checked by main (the same check the approval message gets), a moment after typing stops.
  useEffect(() => {
    if (kind !== 'rule' || args === options.rule.args) return;
    let live = true;
    const timer = setTimeout(() => {
      store.rememberOptions(request.toolCallId, args).then(
        (next) => {
          if (!live) return;
          setOffer(next.rule);
          setChecking(false);
        },
        (error: unknown) => {
          if (!live) return;
          setProblem(errorText(error));
          setChecking(false);
        },
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [kind, args, options.rule.args, store, request.toolCallId]);

  const setCondition = (index: number, change: Partial<ArgumentMatcher>): void => {
    setChecking(true);
    setArgs(args.map((condition, at) => (at === index ? { ...condition, ...change } : condition)));
  };
  const confirm = (): void => {
    if (!offer.offered || checking) return;
    const remember: RememberAction = kind === 'rule' ? { kind, id: ruleId(request.toolName), args } : { kind };
    if (store.decide(request.toolCallId, { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', remember })) onClose();
    else setProblem('The edited arguments are not valid: fix them on the card first.');
  };

  return (
    // Keys stay in the dialog: Enter or Escape here must not reach the card, where they would allow or deny the call.
    <span onKeyDown={(event) => event.stopPropagation()}>
      <Dialog
        title={`${REMEMBER_WORDS[kind]}?`}
        className="dialog remember-dialog"
        onClose={onClose}
        testId="remember-dialog"
        actions={
          <>
            <button type="button" className="button" onClick={onClose} autoFocus>
              Cancel
            </button>
            <button
              type="submit"
              form={formId}
              className="button button-primary"
              {...(!offer.offered || checking ? { 'aria-disabled': true } : {})}
            >
              Allow and remember
            </button>
          </>
        }
      >
        <form
          id={formId}
          onSubmit={(event) => {
            event.preventDefault();
            confirm();
          }}
        >
          <p>
            This call of <strong>{request.toolName}</strong> from {request.serverName} is allowed once now, and:
          </p>
          {kind === 'rule' && (
            <fieldset className="remember-rule">
              <legend>The rule (edit it before saving)</legend>
              {args.map((condition, index) => (
                <div key={condition.pointer} className="remember-condition">
                  <span className="mono">{condition.pointer}</span>
                  <label className="visually-hidden" htmlFor={`${formId}-match-${index}`}>
                    How {condition.pointer} is compared
                  </label>
                  <select
                    id={`${formId}-match-${index}`}
                    value={condition.match}
                    onChange={(event) => setCondition(index, { match: event.target.value as ArgumentMatcher['match'] })}
                  >
                    {Object.entries(MATCH_LABELS).map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </select>
                  <label className="visually-hidden" htmlFor={`${formId}-value-${index}`}>
                    Value of {condition.pointer}
                  </label>
                  <input
                    id={`${formId}-value-${index}`}
                    className="mono"
                    type="text"
                    value={String(condition.value)}
                    onChange={(event) => setCondition(index, { value: event.target.value })}
                  />
                </div>
              ))}
            </fieldset>
          )}
          <p className="remember-change" data-testid="remember-change">
            {offer.change}
          </p>
          {!offer.offered && (
            <p className="field-problem" role="alert" data-testid="remember-refusal">
              Cannot be saved: {offer.refusal}
            </p>
          )}
          <p className="muted small">
            <strong>Where to undo:</strong> {offer.undo}
          </p>
          {problem && (
            <p className="dialog-error" role="alert">
              {problem}
            </p>
          )}
        </form>
      </Dialog>
    </span>
  );
}
