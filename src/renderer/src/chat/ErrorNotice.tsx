import type { ErrorCode, WorkbenchErrorData } from '../../../shared/errors';
import { WarningIcon } from '../components/icons';

/** What a person can do about each kind of failure, after the message (which says what happened). */
const WHAT_TO_DO: Partial<Record<ErrorCode, string>> = {
  llm_bad_key: 'Check the API key of this provider in Settings → Providers, then try again.',
  llm_rate_limited: 'Wait a moment, then try again.',
  llm_context_too_long: 'Start a new chat, or pick a model with a larger context window above.',
  llm_model_not_found: 'Pick another model for this chat above.',
  llm_server_error: 'The provider had a problem. Try again in a moment.',
  llm_unreachable: "Check your network and the provider's base URL in Settings → Providers.",
  llm_stream_dropped: 'The connection dropped mid-reply. Try again.',
  llm_request_rejected: 'The provider refused the request. Try rephrasing, or another model.',
  invalid_input: 'Pick a provider and model for this chat above, then try again.',
};

export function ErrorNotice({
  error,
  onRetry,
}: {
  error: WorkbenchErrorData;
  onRetry: (() => void) | null;
}): React.JSX.Element {
  // The main process's message often says what to do already ("Try again in 20 s"): no second, vaguer hint then.
  const said = error.message.toLowerCase();
  const hint = WHAT_TO_DO[error.code];
  const showHint =
    hint !== undefined &&
    !said.includes(hint.toLowerCase()) &&
    !(error.code === 'llm_rate_limited' && said.includes('try again'));
  return (
    <div className="error-notice" role="alert" data-testid="error-notice">
      <WarningIcon size={16} />
      <div>
        <p className="error-notice-message">{error.message}</p>
        {showHint && <p className="error-notice-hint">{hint}</p>}
        {onRetry && (
          <button type="button" className="button error-notice-retry" onClick={onRetry}>
            Try again
          </button>
        )}
      </div>
    </div>
  );
}
