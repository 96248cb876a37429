import { useCallback, useEffect, useRef, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import { McpLogLevelSchema, type McpLogLine, type McpServerView } from '../../../../shared/mcp';
import { Notice, errorText } from '../common';
import { RefreshIcon } from '../../components/icons';

const LOG_LIMIT = 1000;
const FOLLOW_INTERVAL_MS = 2000;

const SOURCE_WORDS: Record<McpLogLine['source'], string> = { host: 'workbench', stderr: 'stderr', server: 'server' };

/**
 * The server's stderr ring buffer, its MCP log messages with their levels, and what AI Workbench noticed, newest
 * at the bottom, followed while open. The level the server logs at is set here (docs/user/mcp-servers.md#logging).
 */
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
        <span className="logs-actions">
          <label className="log-level-picker">
            <span className="muted small">Server log level</span>
            <select
              value={server.logLevel}
              title={
                server.status.features && !server.status.features.logging
                  ? 'This server sends no MCP log messages; the level applies if it starts to.'
                  : undefined
              }
              onChange={(event) =>
                void api.mcp.edit({ name: server.name, logLevel: McpLogLevelSchema.parse(event.target.value) }).then(
                  () => load(),
                  (failure: unknown) => setError(errorText(failure)),
                )
              }
            >
              {McpLogLevelSchema.options.map((level) => (
                <option key={level} value={level}>
                  {level === 'debug'
                    ? 'debug (everything)'
                    : level === 'info'
                      ? 'info (default)'
                      : `${level} and above`}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="button button-small" onClick={() => void load()}>
            <RefreshIcon size={12} /> Refresh
          </button>
        </span>
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
          <div
            key={index}
            className={`log-line log-${line.source}${line.level ? ` log-level-${line.level}` : ''}`}
            data-level={line.level}
          >
            <span className="log-time">{new Date(line.time).toLocaleTimeString()}</span>
            <span className="log-source">
              {line.level ? <span className="log-level">{line.level}</span> : SOURCE_WORDS[line.source]}
            </span>
            <span className="log-text">
              {line.logger && <span className="log-logger">{line.logger}: </span>}
              {line.text}
            </span>
          </div>
        ))}
      </pre>
    </div>
  );
}
