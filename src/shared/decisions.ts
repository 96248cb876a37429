import type { RememberKind, ResolutionOutcome, ToolCallDecision } from './approval';
import { AUTO_APPROVE_SERVER } from './trust-words';
import type { AuditDecision } from './audit';

/**
 * The ONE table of a person's decisions about a tool call (docs/user/approvals.md): seed 000's three answers, what
 * each resolves to, how the audit log names it, and the words the card, the CLI and the records use. Every front end
 * and the engine read it from here; nothing keeps its own copy.
 */

/** Seed 000's warning, shown above every approval prompt (the card and the CLI). */
export const APPROVAL_WARNING =
  'Malicious MCP Servers or conversation content could potentially trick AI Workbench into attempting harmful actions through your installed tools.';

/** A person's answer → how its call is resolved. */
export const RESOLUTION_OF: Record<ToolCallDecision, ResolutionOutcome> = {
  TOOL_CALL_DECISION_ALLOW_SESSION: 'allow_session',
  TOOL_CALL_DECISION_ALLOW_ONCE: 'allow_once',
  TOOL_CALL_DECISION_DENY: 'deny',
};

/** A resolution → its decision row in the audit log (the same names: the log speaks the resolutions' words). */
export const AUDIT_DECISION_OF: Record<ResolutionOutcome, AuditDecision> = {
  allow_session: 'allow_session',
  allow_once: 'allow_once',
  deny: 'deny',
  timeout: 'timeout',
  cancelled: 'cancelled',
};

/** Why a call was resolved so, as its record and the audit log's `decidedBy` say it. */
export const RESOLUTION_WORDS: Record<ResolutionOutcome, string> = {
  allow_session: "You chose 'Allow for this chat'",
  allow_once: "You chose 'Allow once'",
  deny: "You chose 'Deny'",
  timeout: 'Nobody decided before the approval timed out',
  cancelled: 'The chat was stopped before anyone decided',
};

/** How a call already resolved is named when it is answered again ("was already decided (allowed once)"). */
export const RESOLVED_WORDS: Record<ResolutionOutcome, string> = {
  allow_session: 'allowed for this chat',
  allow_once: 'allowed once',
  deny: 'denied',
  timeout: 'timed out',
  cancelled: 'cancelled when the chat was stopped',
};

/** What the card shows beside an answer given but not yet sent. */
export const DISPOSITION_WORDS: Record<ToolCallDecision, string> = {
  TOOL_CALL_DECISION_ALLOW_SESSION: 'Approved for session',
  TOOL_CALL_DECISION_ALLOW_ONCE: 'Approved once',
  TOOL_CALL_DECISION_DENY: 'Denied',
};

/** The card's "More…" actions and the CLI's keys for them (issue 16 §1): one name each, everywhere. */
export const REMEMBER_WORDS: Record<RememberKind, string> = {
  tool: 'Always allow this tool',
  rule: 'Always allow calls like this',
  server: AUTO_APPROVE_SERVER,
};

/** An answer that also remembered, as its audit row's `decidedBy` says it. */
export function rememberedDecidedBy(kind: RememberKind, change: string): string {
  return `You chose '${REMEMBER_WORDS[kind]}' (this call allowed once; policy change: ${change})`;
}
