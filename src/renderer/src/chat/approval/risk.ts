import type { ToolAnnotations } from '../../../../shared/tool';

export interface RiskBadge {
  label: string;
  tone: 'safe' | 'caution' | 'danger' | 'info';
  /** The tooltip: what the hint means and who says so. */
  description: string;
}

/**
 * The approval card's risk badges, from the tool's MCP annotations. They are the server's own claims: unless
 * the person marked the server trusted, each badge says "declared by the server" (a malicious server can call a
 * destructive tool read-only). MCP's defaults apply when a hint is missing: not read-only, destructive, open world.
 */
export function riskBadges(annotations: ToolAnnotations | undefined, trusted: boolean): RiskBadge[] {
  const who = trusted ? 'from a server you trust' : 'declared by the server';
  const badges: RiskBadge[] = [];
  if (!annotations || Object.keys(annotations).filter((key) => key !== 'title').length === 0) {
    return [
      {
        label: 'No risk hints',
        tone: 'info',
        description: 'The server says nothing about what this tool does: treat it as able to change anything.',
      },
    ];
  }
  if (annotations.readOnlyHint === true) {
    badges.push({ label: 'Read-only', tone: 'safe', description: `Does not change anything (${who}).` });
  } else if (annotations.destructiveHint === false) {
    badges.push({
      label: 'Changes data',
      tone: 'caution',
      description: `May add or change data but not delete or overwrite it (${who}).`,
    });
  } else {
    badges.push({ label: 'Destructive', tone: 'danger', description: `May delete or overwrite data (${who}).` });
  }
  if (annotations.openWorldHint !== false && annotations.readOnlyHint !== true) {
    badges.push({
      label: 'Open world',
      tone: 'info',
      description: `Reaches beyond this computer: the internet or other systems (${who}).`,
    });
  }
  return badges;
}
