/**
 * One word per meaning (docs/user/approvals.md, "Two settings, two words"): **auto-approve** is the server setting
 * that runs every tool of a server without asking; **trust** is only the server's "trusted" flag, which makes its
 * tool annotations (readOnlyHint…) count. The card, Settings and the CLI take their words from here.
 */

/** The card's "More…" action and the CLI's name for it. */
export const AUTO_APPROVE_SERVER = 'Auto-approve all tools of this server';

/** The Settings switch of one server's approval setting. */
export function autoApproveServerLabel(serverName: string): string {
  return `Auto-approve all tools of ${serverName}`;
}

/** The servers page's switch for the trusted flag. */
export const TRUST_ANNOTATIONS = "Trust this server's annotations";
