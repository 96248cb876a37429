import { useContext, useState } from 'react';
import type { ToolCallRecord, ToolTaskState } from '../../../shared/messages';
import { ChatContext } from './chat-context';

const TASK_WORDS: Record<ToolTaskState['status'], string> = {
  working: 'Working',
  input_required: 'Waiting for your answer',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/**
 * A call running as an MCP task (docs/user/mcp-servers.md#tasks): the task's status and status message, and Cancel,
 * which asks the server to stop it (`tasks/cancel`). It goes on after the reply stopped; its result arrives here.
 */
export function TaskLine({ call, label }: { call: ToolCallRecord; label: string }): React.JSX.Element | null {
  const chat = useContext(ChatContext);
  const [asked, setAsked] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const task = call.task;
  if (!task) return null;
  const running = call.status === 'running';
  const words = `${TASK_WORDS[task.status]}${task.statusMessage ? `: ${task.statusMessage}` : ''}`;
  const cancel = (): void => {
    if (!chat) return;
    setAsked(true);
    setProblem(null);
    chat.api.chat.cancelTask({ chatId: chat.store.chatId, toolCallId: call.toolCallId }).catch((error: unknown) => {
      setAsked(false);
      setProblem((error as { message?: string }).message ?? String(error));
    });
  };
  if (!running) return null;
  return (
    <div className="tool-progress tool-task" data-testid="tool-task">
      <div
        className="tool-progress-track is-indeterminate"
        role="progressbar"
        aria-label={`${label} task`}
        aria-valuetext={words}
      >
        <div className="tool-progress-fill" />
      </div>
      <span className="tool-progress-text" aria-live="polite">
        Task · {words}
      </span>
      {chat && (
        <button
          type="button"
          className="button button-small"
          disabled={asked}
          onClick={cancel}
          aria-label={`Cancel the task of ${label}`}
        >
          {asked ? 'Cancelling…' : 'Cancel'}
        </button>
      )}
      {problem && (
        <span className="tool-task-problem" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}
