import { useCallback, useEffect, useRef, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { McpLogLine, McpServerView } from '../../../../shared/mcp';
import { Notice, errorText } from '../common';
import { RefreshIcon } from '../../components/icons';

const LOG_LIMIT = 1000;
const FOLLOW_INTERVAL_MS = 2000;

/** The server's stderr ring buffer and what AI Workbench noticed, newest at the bottom, followed while open. */
export function ServerLogs({ api, server }: { api: WorkbenchApi; server: McpServerView }): React.JSX.Element {
  const [lines, setLines] = useState<McpLogLine[] | null>(null);
  const [dropped, setDropped] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const view = useRef<HTMLPreElement>(null);
  const stuckToBottom = useRef(true);

  const load = useCallback(
    () =>
      api.mcp.logs({ name: server.name, limit: LOG_LIMIT }).then(
        (result) => {
          setLines(result.lines);
          setDropped(result.dropped);
          setError(null);
        },
        (failure: unknown) => setError(errorText(failure)),
      ),
    [api, server.name],
  );

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), FOLLOW_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [load, server.status.state, server.status.since]);

  useEffect(() => {
    const element = view.current;
    if (element && stuckToBottom.current) element.scrollTop = element.scrollHeight;
  }, [lines]);

  return (
    <div className="logs">
      <div className="logs-toolbar">
        <span className="muted small">
          {lines === null ? 'Loading…' : `${lines.length} line${lines.length === 1 ? '' : 's'}`}
          {dropped > 0 && ` · ${dropped.toLocaleString()} older lines dropped from the buffer`}
        </span>
        <button type="button" className="button button-small" onClick={() => void load()}>
          <RefreshIcon size={12} /> Refresh
        </button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
      <pre
        ref={view}
        className="log-view"
        tabIndex={0}
        aria-label={`Log of ${server.name}`}
        onScroll={(event) => {
          const element = event.currentTarget;
          stuckToBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
        }}
      >
        {lines?.length === 0 && <span className="muted">Nothing logged yet.</span>}
        {lines?.map((line, index) => (
          <div key={index} className={`log-line log-${line.source}`}>
            <span className="log-time">{new Date(line.time).toLocaleTimeString()}</span>
            <span className="log-source">{line.source === 'host' ? 'workbench' : 'stderr'}</span>
            <span className="log-text">{line.text}</span>
          </div>
        ))}
      </pre>
    </div>
  );
}
