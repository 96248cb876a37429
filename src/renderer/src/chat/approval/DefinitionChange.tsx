import { useEffect, useState } from 'react';
import type { McpTool } from '../../../../shared/mcp';
import { useChatContext } from '../chat-context';
import { lineDiff, prettyJson } from '../format';

/** The notice of a tool whose definition changed since it was allowed in this chat, with what changed. */
export function DefinitionChange({
  serverName,
  toolName,
}: {
  serverName: string;
  toolName: string;
}): React.JSX.Element {
  const { api } = useChatContext();
  const [tool, setTool] = useState<McpTool | null>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    let live = true;
    api.mcp
      .tools({ name: serverName })
      .then(({ tools }) => {
        if (live) setTool(tools.find((candidate) => candidate.name === toolName) ?? null);
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [api, serverName, toolName]);
  const shape = (definition: Pick<McpTool, 'description' | 'inputSchema' | 'annotations'>): string =>
    prettyJson({
      description: definition.description,
      inputSchema: definition.inputSchema,
      annotations: definition.annotations,
    });
  const diff = tool?.previous ? lineDiff(shape(tool.previous), shape(tool)) : null;
  return (
    <div className="definition-changed" role="note">
      <strong>This tool changed</strong> since you allowed it for this chat, so it asks again.
      {diff && (
        <>
          {' '}
          <button type="button" className="chat-link" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide changes' : 'Show changes'}
          </button>
          {open && (
            <pre className="diff" aria-label="What changed">
              {diff.map((line, index) => (
                <span key={index} className={`diff-${line.kind}`}>
                  {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '− ' : '  '}
                  {line.text}
                  {'\n'}
                </span>
              ))}
            </pre>
          )}
        </>
      )}
    </div>
  );
}
