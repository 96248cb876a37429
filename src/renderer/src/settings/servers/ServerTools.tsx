import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { ApprovalPolicy, ToolApprovalSetting } from '../../../../shared/approval';
import type { McpServerView, McpTool } from '../../../../shared/mcp';
import { Notice, errorText } from '../common';
import { ToolSettingSelect } from '../approvals/ToolSettingSelect';
import { inheritedWords } from '../approvals/tool-settings';
import { annotationBadges } from './server-text';

/** The tools a server offers, their annotations, and the per-tool approval setting. */
export function ServerTools({ api, server }: { api: WorkbenchApi; server: McpServerView }): React.JSX.Element {
  const [tools, setTools] = useState<McpTool[] | null>(null);
  const [policy, setPolicy] = useState<ApprovalPolicy | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(
    () =>
      Promise.all([api.mcp.tools({ name: server.name }), api.policy.get()]).then(
        ([toolList, view]) => {
          setTools(toolList.tools);
          setPolicy(view.policy);
        },
        (failure: unknown) => setError(errorText(failure)),
      ),
    [api, server.name],
  );

  useEffect(() => {
    void load();
    const stopTools = api.mcp.onDidChangeTools((change) => {
      if (change.serverName === server.name) void load();
    });
    const stopPolicy = api.policy.onDidChange((view) => setPolicy(view.policy));
    return () => {
      stopTools();
      stopPolicy();
    };
  }, [api, load, server.name, server.status.toolCount, server.status.state]);

  const setSetting = async (tool: string, setting: ToolApprovalSetting): Promise<void> => {
    setError(null);
    try {
      setPolicy((await api.policy.update({ tools: { [server.name]: { [tool]: setting } } })).policy);
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  if (error) return <Notice kind="error">{error}</Notice>;
  if (!tools || !policy) return <p className="muted">Loading tools…</p>;
  if (tools.length === 0) {
    return (
      <p className="muted">
        {server.enabled && server.status.state === 'ready'
          ? 'This server offers no tools.'
          : 'The server is not running, so its tools are not known.'}
      </p>
    );
  }
  const serverAuto = policy.servers[server.name]?.autoApprove === true;
  return (
    <div className="tool-table-wrap">
      {serverAuto && (
        <Notice kind="warning">
          All tools of this server run without asking (server setting). A tool set to “Always ask” still asks.
        </Notice>
      )}
      <table className="table tool-table" aria-label={`Tools of ${server.name}`}>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Annotations</th>
            <th scope="col">Approval</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => {
            const badges = annotationBadges(tool.annotations);
            return (
              <tr key={tool.name} data-tool={tool.name}>
                <td>
                  <div className="mono tool-name">{tool.name}</div>
                  {(tool.title ?? tool.annotations?.title) && (
                    <div className="small">{tool.title ?? tool.annotations?.title}</div>
                  )}
                  {tool.description && (
                    <div className="muted small clamp" title={tool.description}>
                      {tool.description}
                    </div>
                  )}
                  {tool.problem && <div className="field-problem">{tool.problem}</div>}
                  {tool.previous && <div className="badge tone-warn">Definition changed since first seen</div>}
                </td>
                <td>
                  <div className="badges">
                    {badges.length === 0 && <span className="muted small">None</span>}
                    {badges.map((badge) => (
                      <span key={badge.label} className={`badge tone-${badge.tone}`} title={badge.title}>
                        {badge.label}
                      </span>
                    ))}
                  </div>
                  {badges.length > 0 && !tool.annotationsTrusted && (
                    <div className="muted small">Declared by the server</div>
                  )}
                </td>
                <td>
                  <ToolSettingSelect
                    label={`Approval for ${tool.name}`}
                    value={policy.tools[server.name]?.[tool.name] ?? 'inherit'}
                    inherited={inheritedWords(policy, server.name, tool.annotations)}
                    onChange={(setting) => void setSetting(tool.name, setting)}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
