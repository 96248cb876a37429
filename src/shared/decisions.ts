import type { RememberKind } from './approval';
import { AUTO_APPROVE_SERVER } from './trust-words';

/**
 * The ONE vocabulary of decisions about everything that waits on a person — tool calls, a server's sampling and
 * elicitation requests (docs/user/approvals.md, docs/user/server-requests.md): the policy's verdict, how a waiting
 * request resolves, seed 000's answers and MCP's answers to server requests as words for those resolutions, the audit
 * log's names for them, the chat's waiting state, and the words the card, the CLI and the records use. The contract's
 * enums are built from the lists here (without zod, so the CLI's command tree loads none); nothing keeps its own copy.
 */

/** The decision pipeline's verdict on a request; a rule's effect and a server's sampling setting say the same three words. */
export const VERDICTS = ['allow', 'ask', 'deny'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** How a request that waited for a person ended. Only `allow_*` may act. */
export const RESOLUTIONS = ['allow_session', 'allow_once', 'deny', 'timeout', 'cancelled'] as const;
export type ResolutionOutcome = (typeof RESOLUTIONS)[number];

/** The audit log's decision rows: every resolution, and what the policy decided without asking anyone. */
export const AUDIT_DECISIONS = [...RESOLUTIONS, 'auto_allow', 'auto_deny', 'session_grant'] as const;
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];

/** Seed 000's answer for each resolution a person may give a tool call (the spec's wire values). */
export const TOOL_CALL_ANSWER_OF = {
  allow_session: 'TOOL_CALL_DECISION_ALLOW_SESSION',
  allow_once: 'TOOL_CALL_DECISION_ALLOW_ONCE',
  deny: 'TOOL_CALL_DECISION_DENY',
} as const satisfies Partial<Record<ResolutionOutcome, string>>;
export type ToolCallDecision = (typeof TOOL_CALL_ANSWER_OF)[keyof typeof TOOL_CALL_ANSWER_OF];
export const TOOL_CALL_DECISIONS = Object.values(TOOL_CALL_ANSWER_OF) as [ToolCallDecision, ...ToolCallDecision[]];

/**
 * A person's answer to a server's request, in MCP's words where MCP has them (elicitation's accept, decline and
 * cancel), and the resolution each one is. Sampling: `allow-once`, `allow-chat` or `deny` the request, then `send` or
 * `deny` the model's answer.
 */
export const SERVER_REQUEST_RESOLUTION_OF = {
  'allow-once': 'allow_once',
  'allow-chat': 'allow_session',
  deny: 'deny',
  send: 'allow_once',
  accept: 'allow_once',
  decline: 'deny',
  cancel: 'cancelled',
} as const satisfies Record<string, ResolutionOutcome>;
export type ServerRequestAction = keyof typeof SERVER_REQUEST_RESOLUTION_OF;

/** What became of a server's request the person answered, in words (the card's and the CLI's last line). */
export const SERVER_REQUEST_ACTION_WORDS: Record<ServerRequestAction, string> = {
  'allow-once': 'Allowed once',
  'allow-chat': 'Allowed for this chat',
  deny: 'Denied',
  send: 'Answer sent',
  accept: 'Accepted',
  decline: 'Declined',
  cancel: 'Cancelled',
};
export const SERVER_REQUEST_ACTIONS = Object.keys(SERVER_REQUEST_RESOLUTION_OF) as [
  ServerRequestAction,
  ...ServerRequestAction[],
];

/**
 * What kind of request waits in the one pending store: a tool call the model made, and a server's sampling or
 * elicitation request (docs/dev/architecture.md "One engine"); calls an MCP App makes and sandbox widenings wait
 * there too when they come.
 */
export const WAITING_KINDS = ['tool-call', 'sampling', 'elicitation', 'app-tool-call', 'sandbox-widening'] as const;
export type WaitingKind = (typeof WAITING_KINDS)[number];

/** The chat's state while something in it waits for a person, spelled once: the activity, the reply's end, the page. */
export const WAITING_APPROVAL = 'waiting-approval';

/** A tool call's status once the request it waited as resolved without running. */
export const TOOL_CALL_STATUS_OF = {
  deny: 'denied',
  timeout: 'timeout',
  cancelled: 'cancelled',
} as const satisfies Partial<Record<ResolutionOutcome, string>>;

/** Seed 000's warning, shown above every approval prompt (the card and the CLI). */
export const APPROVAL_WARNING =
  'Malicious MCP Servers or conversation content could potentially trick AI Workbench into attempting harmful actions through your installed tools.';

/** A person's answer → how its call is resolved. */
export const RESOLUTION_OF = Object.fromEntries(
  Object.entries(TOOL_CALL_ANSWER_OF).map(([resolution, answer]) => [answer, resolution]),
) as Record<ToolCallDecision, ResolutionOutcome>;

/** A resolution → its decision row in the audit log (the same names: the log speaks the resolutions' words). */
export const AUDIT_DECISION_OF = Object.fromEntries(
  RESOLUTIONS.map((resolution) => [resolution, resolution]),
) as Record<ResolutionOutcome, AuditDecision>;

/** Why a call was resolved so, as its record and the audit log's `decidedBy` say it. */
export const RESOLUTION_WORDS: Record<ResolutionOutcome, string> = {
  allow_session: "You chose 'Allow for this chat'",
  allow_once: "You chose 'Allow once'",
  deny: "You chose 'Deny'",
  timeout: 'Nobody decided before the approval timed out',
  cancelled: 'The chat was stopped before anyone decided',
};

/**
 * Where a person decided, when not on the card in the app: the desktop notification's Allow once / Deny
 * (docs/user/desktop.md#desktop-features), `workbench approvals allow|deny`, and the app's inbox answering a request
 * another process (a `workbench chat`, another instance of the app) holds (docs/user/approvals.md#one-inbox). Appended to the decision's words in its record and the
 * audit log's `decidedBy`.
 */
export const DECISION_ORIGIN_WORDS = {
  notification: 'on the desktop notification',
  cli: 'from the CLI',
  app: 'from the app',
} as const;
export type DecisionOrigin = keyof typeof DECISION_ORIGIN_WORDS;

/** A decision's words with where it was given, when not on the card ("You chose 'Allow once' from the CLI"). */
export const withDecisionOrigin = (words: string, origin: DecisionOrigin | undefined): string =>
  origin === undefined ? words : `${words} ${DECISION_ORIGIN_WORDS[origin]}`;

/** Why a server's request that waited while the app ended was resolved `cancelled` when it started again. */
export const RESTART_WORDS =
  "AI Workbench ended while this server request waited: the server's request ended with its connection, so it was not answered";

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

/** The card's "More…" actions and the CLI's keys for them (docs/user/approvals.md): one name each, everywhere. */
export const REMEMBER_WORDS: Record<RememberKind, string> = {
  tool: 'Always allow this tool',
  rule: 'Always allow calls like this',
  server: AUTO_APPROVE_SERVER,
};

/** An answer that also remembered, as its audit row's `decidedBy` says it. */
export function rememberedDecidedBy(kind: RememberKind, change: string): string {
  return `You chose '${REMEMBER_WORDS[kind]}' (this call allowed once; policy change: ${change})`;
}
