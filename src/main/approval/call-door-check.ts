import { randomUUID } from 'node:crypto';
import { WorkbenchError } from '../errors';
import { CallRefused, type CallDoor } from '../mcp/call-door';
import type { ApprovalGate } from './approval-gate';

/** Who a call is for when its caller named no chat: the audit row still says what the door refused. */
const NO_CHAT = 'no-chat';

/**
 * The door of every call into a server (src/main/mcp/call-door.ts), kept by the approval engine: the deny rules in
 * force at the moment the call is sent, whoever allowed it and whatever path brought it (docs/dev/architecture.md,
 * "The decision order"). A refusal is an `auto_deny` row naming the rule, committed before the door answers; a rule
 * that cannot be checked, or a refusal that cannot be recorded, keeps the call out as well.
 */
export function callDoor(gate: Pick<ApprovalGate, 'checkBeforeRun'>): CallDoor {
  return ({ serverName, toolName, args, chatId, exchangeId, toolCallId, definitionHash }) => {
    let verdict;
    try {
      verdict = gate.checkBeforeRun(
        { chatId: chatId ?? NO_CHAT, exchangeId },
        { toolCallId: toolCallId ?? randomUUID(), serverName, toolName, args },
        definitionHash,
      );
    } catch (error) {
      throw new WorkbenchError(
        'internal',
        `The deny rules could not be checked before the call ran, so the tool did not run: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (verdict) throw new CallRefused(verdict.reason);
  };
}
