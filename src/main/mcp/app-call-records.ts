import type { AuditActor, AuditDecision } from '../../shared/audit';
import type { AppToolCallView } from '../../shared/server-request-views';
import type { DecisionRecord } from '../audit/audit-log';

/**
 * Who asked, in the words every row and card of a view's request carries (docs/user/mcp-apps.md#in-the-audit-log):
 * the app of the server, with the view's `ui://` resource when known, not the model.
 */
export const requestedByApp = (serverName: string, viewUri?: string): string =>
  `requested by the app of ${serverName}${viewUri ? ` (view ${viewUri})` : ''}, not by the model`;

/** What a row about a view's request names: its chat and exchange, its `app:` id, the server and what it asked for. */
export interface AppRequestRow {
  chatId: string;
  exchangeId?: string | undefined;
  id: string;
  serverName: string;
  toolName: string;
  viewUri?: string | undefined;
}

/** One decision row about a view's request: the decider in `actor`, the app as the one who asked in `decidedBy`. */
export function appRequestRecord(
  row: AppRequestRow,
  decision: AuditDecision,
  actor: AuditActor,
  decidedBy: string,
  args: Record<string, unknown>,
  extra: { definitionHash?: string | undefined; reason?: string | undefined } = {},
): DecisionRecord {
  return {
    chatId: row.chatId,
    exchangeId: row.exchangeId,
    toolCallId: row.id,
    serverName: row.serverName,
    toolName: row.toolName,
    definitionHash: extra.definitionHash,
    requestedBy: 'app',
    decision,
    actor,
    decidedBy: `${decidedBy} (${requestedByApp(row.serverName, row.viewUri)})`,
    args,
    reason: extra.reason,
  };
}

/** The row of a view's tool call that waited in the pending store. */
export function appCallRecord(
  view: AppToolCallView,
  decision: AuditDecision,
  actor: AuditActor,
  decidedBy: string,
  reason?: string,
): DecisionRecord {
  return appRequestRecord(view, decision, actor, decidedBy, view.args, {
    definitionHash: view.definitionHash,
    reason,
  });
}
