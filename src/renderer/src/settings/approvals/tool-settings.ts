import type { ApprovalPolicy, PolicyUpdate, ToolApprovalSetting } from '../../../../shared/approval';
import type { ToolAnnotations } from '../../../../shared/tool';

export interface ServerToolsRow {
  server: string;
  autoApprove: boolean;
  totalTools: number;
  /** Tools with a setting other than inherit. */
  customTools: number;
  tools: { name: string; annotations?: ToolAnnotations | undefined; setting: ToolApprovalSetting }[];
}

export interface FilterInput {
  /** Configured servers, in their order. */
  servers: readonly string[];
  tools: readonly { serverName: string; name: string; annotations?: ToolAnnotations | undefined }[];
  policy: ApprovalPolicy;
  query: string;
  /** Only servers and tools whose setting differs from the default. */
  onlyChanged: boolean;
}

/**
 * The rows of the servers-and-tools list: every configured server, plus servers that only the policy
 * still names (settings of a removed server stay visible so they can be reset). A query matches the
 * server's name (all its tools shown) or a tool's name (only the matching tools shown).
 */
export function filterServerTools({ servers, tools, policy, query, onlyChanged }: FilterInput): ServerToolsRow[] {
  const needle = query.trim().toLocaleLowerCase();
  const names = [...servers];
  for (const name of [...Object.keys(policy.servers), ...Object.keys(policy.tools)])
    if (!names.includes(name)) names.push(name);
  const rows: ServerToolsRow[] = [];
  for (const server of names) {
    const settings = policy.tools[server] ?? {};
    const known = tools.filter((tool) => tool.serverName === server);
    // A tool with a setting that the server no longer offers still shows, so it can be reset.
    const all = [...known.map((tool) => ({ name: tool.name, annotations: tool.annotations }))];
    for (const name of Object.keys(settings))
      if (!all.some((tool) => tool.name === name)) all.push({ name, annotations: undefined });
    const withSettings = all.map((tool) => ({ ...tool, setting: settings[tool.name] ?? ('inherit' as const) }));
    const autoApprove = policy.servers[server]?.autoApprove === true;
    const serverMatches = needle === '' || server.toLocaleLowerCase().includes(needle);
    let visible = serverMatches
      ? withSettings
      : withSettings.filter((tool) => tool.name.toLocaleLowerCase().includes(needle));
    if (onlyChanged) visible = visible.filter((tool) => tool.setting !== 'inherit');
    if (!serverMatches && visible.length === 0) continue;
    if (onlyChanged && !autoApprove && visible.length === 0) continue;
    rows.push({
      server,
      autoApprove,
      totalTools: all.length,
      customTools: withSettings.filter((tool) => tool.setting !== 'inherit').length,
      tools: visible,
    });
  }
  return rows;
}

/**
 * What "Use server setting" comes to for a tool now (docs/user/approvals.md, "Which setting wins"): the server's
 * auto-approve, else the global mode. Shown in the option itself, so the choice says what it does.
 */
export function inheritedWords(
  policy: Pick<ApprovalPolicy, 'mode' | 'servers'>,
  server: string,
  annotations?: ToolAnnotations,
): string {
  if (policy.servers[server]?.autoApprove === true) return 'runs without asking (the server is auto-approved)';
  if (policy.mode === 'never-ask') return 'runs without asking (approvals are off)';
  if (policy.mode === 'auto-approve-read-only-trusted' && annotations?.readOnlyHint === true)
    return "asks, unless you trust the server's annotations (read-only)";
  return 'asks';
}

/** The one change that forgets every server and tool setting (rules, mode and timeout stay). */
export function resetToDefaults(policy: ApprovalPolicy): PolicyUpdate {
  return {
    servers: Object.fromEntries(Object.keys(policy.servers).map((server) => [server, null])),
    tools: Object.fromEntries(
      Object.entries(policy.tools).map(([server, byTool]) => [
        server,
        Object.fromEntries(Object.keys(byTool).map((tool) => [tool, 'inherit' as const])),
      ]),
    ),
  };
}
