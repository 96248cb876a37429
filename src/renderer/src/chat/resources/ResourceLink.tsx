import { useState } from 'react';
import { errorText } from '../../../../shared/error-data';
import type { McpReadResourceOutput } from '../../../../shared/mcp';
import { Dialog } from '../../components/Dialog';
import { useChatContext } from '../chat-context';

/**
 * A `resource_link` in a tool's result (docs/user/mcp-servers.md#resources): shown, never followed by itself; a click
 * is the person asking the server that returned it to read it, and the contents open in a dialog.
 */
export function ResourceLink({
  server,
  uri,
  name,
  description,
}: {
  server: string;
  uri: string;
  name: string;
  description?: string | undefined;
}): React.JSX.Element {
  const { api } = useChatContext();
  const [open, setOpen] = useState(false);
  const [read, setRead] = useState<McpReadResourceOutput | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const show = (): void => {
    setOpen(true);
    setRead(null);
    setProblem(null);
    api.mcp.readResource({ name: server, uri }).then(setRead, (error: unknown) => setProblem(errorText(error)));
  };
  return (
    <div className="tool-resource">
      <button type="button" className="chat-link" onClick={show} title={`Ask ${server} to read ${uri}`}>
        {name}
      </button>{' '}
      <span className="muted">{uri}</span>
      {description && <span className="muted"> — {description}</span>}
      {open && (
        <Dialog
          title={name}
          className="dialog resource-view"
          testId="resource-view"
          onClose={() => setOpen(false)}
          actions={
            <button type="button" className="button" onClick={() => setOpen(false)}>
              Close
            </button>
          }
        >
          <p className="muted small">
            {uri} · read from {server}
          </p>
          {problem && (
            <p className="field-problem" role="alert">
              {problem}
            </p>
          )}
          {!read && !problem && <p className="muted">Reading…</p>}
          {read?.contents.map((content, index) =>
            content.text !== undefined ? (
              <pre key={index} className="tool-pre">
                {content.text}
                {content.truncated ? '\n[cut at 1 MB]' : ''}
              </pre>
            ) : (
              <p key={index} className="muted">
                Binary contents ({content.mimeType ?? 'unknown type'},{' '}
                {Math.floor(((content.blob ?? '').length * 3) / 4).toLocaleString('en')} bytes): not shown.
              </p>
            ),
          )}
        </Dialog>
      )}
    </div>
  );
}
