import { ChatIcon } from '../components/icons';

export function EmptyChat({ providerId }: { providerId: string | null }): React.JSX.Element {
  return (
    <div className="pane-center">
      <div className="empty-state">
        <span className="empty-state-icon">
          <ChatIcon size={28} />
        </span>
        <h2>No messages yet</h2>
        <p className="muted">
          Ask something below. Tool calls and approvals appear here, inside the answer. No tool runs unless you, or a
          rule you set, allowed it.
        </p>
        {providerId === 'demo' && (
          <p className="muted empty-state-hint">
            The Demo provider is not an AI model: try <code className="inline-code">list files</code>,{' '}
            <code className="inline-code">write notes.txt: hello</code> or{' '}
            <code className="inline-code">read notes.txt</code>.
          </p>
        )}
      </div>
    </div>
  );
}
