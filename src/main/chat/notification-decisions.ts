import type { PendingApproval, ToolCallApproval, ToolCallDecision } from '../../shared/approval';
import type { DecisionOrigin } from '../../shared/decisions';

/**
 * Deciding a waiting call from the desktop notification (docs/user/desktop.md#desktop-features): the notification of
 * one call that alone waits in its chat offers **Allow once** and **Deny**; a press sends the same approval message
 * as the card, through the one engine (exchange coordinator → pending store, its checks and its audit row, which
 * says "on the desktop notification"). The notification names the server and the tool, never the arguments.
 *
 * Plain code: Electron's `Notification` class is a parameter (src/main/electron/desktop-shell.ts passes it), so the
 * tests run without Electron with a stand-in of the same shape.
 */

/** The part of Electron's `Notification` used here (https://www.electronjs.org/docs/latest/api/notification). */
export interface NotificationLike {
  on(event: 'click' | 'close', listener: () => void): unknown;
  /** Electron ≥ 35 passes `{ actionIndex }` first (the index also comes second, deprecated). */
  on(event: 'action', listener: (details: { actionIndex: number }) => void): unknown;
  show(): void;
  close(): void;
}

export interface NotificationOptions {
  title: string;
  body: string;
  /** Buttons: shown on macOS (a signed app) and Windows; other systems show none, and a click opens the call. */
  actions?: { type: 'button'; text: string }[];
}

export type NotificationConstructor = new (options: NotificationOptions) => NotificationLike;

/** What a notification is about: approval-attention.ts `approvalNotification` makes it. */
export interface NotificationPlan {
  readonly title: string;
  readonly body: string;
  readonly chatId: string;
  readonly toolCallId: string;
}

/** The buttons, in order: their index is what Electron's `action` event reports. */
export const NOTIFICATION_ACTIONS: readonly { text: string; decision: ToolCallDecision }[] = [
  { text: 'Allow once', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' },
  { text: 'Deny', decision: 'TOOL_CALL_DECISION_DENY' },
];

export interface NotificationDecisionsDependencies {
  readonly Notification: NotificationConstructor;
  /** The chat's calls waiting now (the pending store). */
  waiting(chatId: string): readonly PendingApproval[];
  /** The card's path: the exchange coordinator's `send` of an approval message, saying where it was decided. */
  send(
    chatId: string,
    message: { role: 'approval'; toolCallApprovals: ToolCallApproval[] },
    origin: DecisionOrigin,
  ): void;
  /** Opens the app at the chat, with the call's card in view. */
  open(request: { chatId: string; toolCallId: string }): void;
}

export interface NotificationDecisions {
  /** Shows the notification of `plan`, with Allow once / Deny when its call alone waits in its chat. */
  show(plan: NotificationPlan): void;
  /** Closes the notifications of calls decided elsewhere (the card, the CLI, a timeout). */
  resolved(toolCallIds: readonly string[]): void;
  dispose(): void;
}

export function createNotificationDecisions(dependencies: NotificationDecisionsDependencies): NotificationDecisions {
  const { Notification } = dependencies;
  // Shown notifications are kept until closed: one that is garbage-collected loses its handlers.
  const shown = new Map<string, NotificationLike>();

  const forget = (toolCallId: string, notification: NotificationLike): void => {
    if (shown.get(toolCallId) === notification) shown.delete(toolCallId);
  };

  /** A press that could not decide says so in a notification of its own (no arguments either), opening the chat. */
  const refused = (plan: NotificationPlan, why: string): void => {
    const notification = new Notification({ title: `Not decided: ${plan.title}`, body: why });
    notification.on('click', () => dependencies.open({ chatId: plan.chatId, toolCallId: plan.toolCallId }));
    notification.show();
  };

  const decide = (plan: NotificationPlan, decision: ToolCallDecision): void => {
    const waiting = dependencies.waiting(plan.chatId);
    if (!waiting.some((approval) => approval.request.toolCallId === plan.toolCallId)) {
      refused(plan, 'It was decided meanwhile or its time ran out. Open AI Workbench to see what happened.');
      return;
    }
    if (waiting.length > 1) {
      refused(plan, 'Other calls of the chat wait with it now: answer them together in AI Workbench.');
      return;
    }
    try {
      dependencies.send(
        plan.chatId,
        { role: 'approval', toolCallApprovals: [{ toolCallId: plan.toolCallId, decision }] },
        'notification',
      );
    } catch {
      // The engine refused (decided in the same instant, a deny rule on the arguments…): nothing was applied.
      refused(plan, 'AI Workbench did not apply the answer. Open it to see the call and decide there.');
    }
  };

  return {
    show(plan) {
      const waiting = dependencies.waiting(plan.chatId);
      const alone = waiting.length === 1 && waiting[0]?.request.toolCallId === plan.toolCallId;
      const notification = new Notification({
        title: plan.title,
        body: plan.body,
        ...(alone ? { actions: NOTIFICATION_ACTIONS.map(({ text }) => ({ type: 'button' as const, text })) } : {}),
      });
      shown.get(plan.toolCallId)?.close();
      shown.set(plan.toolCallId, notification);
      notification.on('click', () => dependencies.open({ chatId: plan.chatId, toolCallId: plan.toolCallId }));
      notification.on('close', () => forget(plan.toolCallId, notification));
      if (alone) {
        notification.on('action', (details) => {
          const action = NOTIFICATION_ACTIONS[details.actionIndex];
          if (!action) return;
          forget(plan.toolCallId, notification);
          decide(plan, action.decision);
        });
      }
      notification.show();
    },
    resolved(toolCallIds) {
      for (const toolCallId of toolCallIds) {
        const notification = shown.get(toolCallId);
        shown.delete(toolCallId);
        notification?.close();
      }
    },
    dispose() {
      for (const notification of shown.values()) notification.close();
      shown.clear();
    },
  };
}
