import type { ChatGrant } from '../../../shared/approval';
import type { IdentityChange } from '../../../shared/server-identity';
import type { CompiledRule } from './rule-compiler';

/**
 * The words of every decision, in one place so that the card, `explain` and the audit log say the
 * same thing. A rule is named by its number in the user's list, or as the organisation's.
 */

/** "14:02", the person's local time. */
export function clockTime(ms: number): string {
  const date = new Date(ms);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

export function ruleName(rule: CompiledRule): string {
  return rule.managed ? `your organisation's rule '${rule.rule.id}'` : `your rule #${rule.number ?? '?'}`;
}

function withNote(text: string, rule: CompiledRule): string {
  return rule.rule.note ? `${text} (${rule.rule.note})` : text;
}

export const reasons = {
  identityChanged: (serverName: string, change: IdentityChange): string =>
    `The server '${serverName}' runs something else than when its settings were made (was: ${change.previous}; now: ${change.current}), so none of them allows its calls.`,
  managedDeny: (rule: CompiledRule): string =>
    withNote(`Denied by your organisation's policy, rule '${rule.rule.id}': ${rule.description}`, rule),
  deny: (rule: CompiledRule): string => withNote(`Denied by ${ruleName(rule)}: ${rule.description}`, rule),
  approvalsOff: (): string => 'Approvals are off (never ask)',
  chatGrant: (grant: ChatGrant): string =>
    `Allowed for this chat (you chose 'Allow for this chat' at ${clockTime(grant.grantedAt)})`,
  chatNeverAsk: (): string => "Allowed: this chat is set to 'Never ask'",
  chatAlwaysAsk: (): string => "Asked because this chat is set to 'Always ask'",
  ask: (rule: CompiledRule): string => withNote(`Asked because of ${ruleName(rule)}: ${rule.description}`, rule),
  allow: (rule: CompiledRule): string => withNote(`Auto-approved by ${ruleName(rule)}: ${rule.description}`, rule),
  toolAutoApprove: (server: string, tool: string): string => `Auto-approved: tool setting '${server}.${tool}'`,
  toolAlwaysAsk: (server: string, tool: string): string =>
    `Asked because of the tool setting '${server}.${tool}' (always ask)`,
  serverAutoApprove: (server: string): string =>
    `Auto-approved: server setting '${server}' (auto-approve all its tools)`,
  trustedReadOnly: (server: string, tool: string): string =>
    `Auto-approved: '${tool}' says it is read-only, and you trust the annotations of '${server}'`,
  globalAsk: (): string => 'Asked: your global setting is to ask before every tool call',
  organisationRequiresApprovals: (): string =>
    "Asked: your organisation's policy does not allow turning approvals off, so 'never ask' is ignored",
  noAllowSource: (): string => 'Asked: no rule or setting allows this tool without asking',
  changed: (grant: ChatGrant): string =>
    `Asked because this tool changed since you allowed it for this chat at ${clockTime(grant.grantedAt)}`,
  /**
   * Step 3's explicit asks, as the card and the CLI show them beside "Allow for this chat": the grant is
   * recorded but cannot silence the setting that asks (docs/user/approvals.md, "Which setting wins").
   */
  keepsAsking: {
    askRule: (rule: CompiledRule): string =>
      `This tool will keep asking, even after 'Allow for this chat': ${ruleName(rule)} asks every time (${rule.description}).`,
    toolAlwaysAsk: (server: string, tool: string): string =>
      `This tool will keep asking, even after 'Allow for this chat': the tool setting '${server}.${tool}' is 'Always ask'.`,
    chatAlwaysAsk: (): string =>
      "This tool will keep asking, even after 'Allow for this chat': this chat is set to 'Always ask'.",
  },
};
