import { PlusIcon, ShieldIcon } from './icons';

export interface WelcomeProps {
  onNewChat(): void;
  failed: boolean;
  onRetry(): void;
}

export function Welcome({ onNewChat, failed, onRetry }: WelcomeProps): React.JSX.Element {
  return (
    <div className="pane-center">
      <div className="welcome">
        <span className="welcome-mark">
          <ShieldIcon size={32} />
        </span>
        <h1>Welcome to AI Workbench</h1>
        <p className="muted">
          Chat with language models that use tools from your MCP servers. Every tool call waits for your approval, or
          for a rule you set.
        </p>
        {failed ? (
          <button type="button" className="button" onClick={onRetry}>
            Could not load your chats. Try again
          </button>
        ) : (
          <button type="button" className="button button-primary" onClick={onNewChat}>
            <PlusIcon />
            Start a new chat
          </button>
        )}
      </div>
    </div>
  );
}
