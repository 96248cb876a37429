import type { ChatGrant } from '../../shared/approval';
import type { AuditActor, AuditDecision } from '../../shared/audit';
import type { McpServerRequestView } from '../../shared/server-request-views';
import { SERVER_REQUEST_NO_CHAT, type ServerRequestRecord } from '../audit/audit-log';

/**
 * What a server's request is called in the audit log and in a chat's grants (docs/user/server-requests.md#in-the-audit-log): the
 * method decided, the arguments recorded, and the grant "Allow for this chat" makes for sampling.
 */
export const SERVER_REQUEST_NAMES = {
  sampling: 'sampling/createMessage',
  answer: 'sampling/answer',
  elicitation: 'elicitation/create',
} as const;

/**
 * "Allow for this chat" of a server's sampling, kept as a chat grant like a tool's: the method's name in place of the
 * tool's, and a definition hash no tool definition has (a tool's is a SHA-256 in hex), so that the grant never allows a
 * tool call and a tool's grant never allows sampling.
 */
export const SAMPLING_GRANT = { toolName: SERVER_REQUEST_NAMES.sampling, definitionHash: 'mcp-sampling' } as const;

export function samplingGrant(chatId: string, serverName: string, grantedAt: number): ChatGrant {
  return { chatId, serverName, ...SAMPLING_GRANT, grantedAt };
}

export function isSamplingGrant(grant: ChatGrant, serverName: string): boolean {
  return (
    grant.serverName === serverName &&
    grant.toolName === SAMPLING_GRANT.toolName &&
    grant.definitionHash === SAMPLING_GRANT.definitionHash
  );
}

/** The method a request's row names: a sampling request, its answer, or an elicitation. */
export function serverRequestMethod(view: McpServerRequestView): string {
  if (view.kind === 'elicitation') return SERVER_REQUEST_NAMES.elicitation;
  return view.stage === 'answer' ? SERVER_REQUEST_NAMES.answer : SERVER_REQUEST_NAMES.sampling;
}

/** What deny rules match and the audit log records of a request (or of the model's answer). */
export function serverRequestArgs(view: McpServerRequestView): Record<string, unknown> {
  if (view.kind === 'elicitation')
    return view.mode === 'url'
      ? { message: view.message, url: view.url }
      : { message: view.message, requestedSchema: view.requestedSchema };
  if (view.stage === 'answer') return { text: view.answer?.text ?? '', model: view.answer?.model ?? '' };
  return { messages: view.messages, systemPrompt: view.systemPrompt, maxTokens: view.maxTokens };
}

/** One audit row about a server's request. */
export function serverRequestRecord(
  view: McpServerRequestView,
  decision: AuditDecision,
  actor: AuditActor,
  decidedBy: string,
  extra: {
    toolName?: string;
    args?: Record<string, unknown>;
    reason?: string | undefined;
    editedArgs?: Record<string, unknown> | undefined;
  } = {},
): ServerRequestRecord {
  return {
    kind: view.kind,
    chatId: view.chatId ?? SERVER_REQUEST_NO_CHAT,
    toolCallId: view.id,
    serverName: view.serverName,
    toolName: extra.toolName ?? serverRequestMethod(view),
    decision,
    actor,
    decidedBy,
    args: extra.args ?? serverRequestArgs(view),
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(extra.editedArgs ? { editedArgs: extra.editedArgs } : {}),
  };
}
