import type { PendingApproval, ToolCallApproval } from '../../../shared/approval';
import type { ServerRequestView } from '../../../shared/server-request-views';

/** A decision taken in the inbox for one waiting tool call, before its chat's answer is sent. */
export type InboxDecision = 'TOOL_CALL_DECISION_ALLOW_ONCE' | 'TOOL_CALL_DECISION_DENY';

/** One thing waiting on the person, of any kind, as the inbox lists it (docs/user/approvals.md, "One inbox"). */
export type InboxItem =
  | { readonly kind: 'tool-call'; readonly key: string; readonly createdAt: number; readonly approval: PendingApproval }
  | {
      readonly kind: 'server-request';
      readonly key: string;
      readonly createdAt: number;
      readonly request: ServerRequestView;
    };

/** Every waiting item, oldest first: what waited longest is answered first. */
export function inboxItems(approvals: Iterable<PendingApproval>, requests: Iterable<ServerRequestView>): InboxItem[] {
  const items: InboxItem[] = [];
  for (const approval of approvals)
    items.push({
      kind: 'tool-call',
      key: `tool-call:${approval.chatId}:${approval.request.toolCallId}`,
      createdAt: approval.createdAt,
      approval,
    });
  for (const request of requests)
    items.push({ kind: 'server-request', key: `server-request:${request.id}`, createdAt: request.createdAt, request });
  return items.sort((a, b) => a.createdAt - b.createdAt || a.key.localeCompare(b.key));
}

/** The answer of one chat, ready for `chat.send`. */
export interface ChatAnswer {
  readonly chatId: string;
  readonly approvals: ToolCallApproval[];
}

/**
 * A chat's waiting calls are answered in one approval message, every one of them (docs/dev/architecture.md, "The tool
 * loop"): the chats whose every waiting call has a decision are ready to send; the others say how many are left.
 */
export function answersReady(
  waiting: Iterable<PendingApproval>,
  decisions: ReadonlyMap<string, InboxDecision>,
): { ready: ChatAnswer[]; undecided: Map<string, number> } {
  const byChat = new Map<string, PendingApproval[]>();
  for (const approval of waiting) byChat.set(approval.chatId, [...(byChat.get(approval.chatId) ?? []), approval]);
  const ready: ChatAnswer[] = [];
  const undecided = new Map<string, number>();
  for (const [chatId, approvals] of byChat) {
    const decided = approvals.filter((approval) => decisions.has(approval.request.toolCallId));
    if (decided.length === 0) continue;
    if (decided.length < approvals.length) {
      undecided.set(chatId, approvals.length - decided.length);
      continue;
    }
    ready.push({
      chatId,
      approvals: approvals.map((approval) => ({
        toolCallId: approval.request.toolCallId,
        decision: decisions.get(approval.request.toolCallId) as InboxDecision,
      })),
    });
  }
  return { ready, undecided };
}

/** "waiting 3 min", "waiting 12 s". */
export function ageWords(createdAt: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - createdAt) / 1000));
  if (seconds < 60) return `waiting ${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `waiting ${minutes} min`;
  return `waiting ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** "times out in 4 min", "waits until you answer". */
export function timeLeftWords(expiresAt: number | null | undefined, now: number): string {
  if (expiresAt === null || expiresAt === undefined) return 'waits until you answer';
  const seconds = Math.max(0, Math.round((expiresAt - now) / 1000));
  if (seconds < 60) return `times out in ${seconds} s`;
  return `times out in ${Math.ceil(seconds / 60)} min`;
}
