import type { PolicyUpdate, RememberAction, ToolCallApproval, ToolCallRequest } from '../../shared/approval';
import { RESOLVED_WORDS } from '../../shared/decisions';
import { WorkbenchError } from '../errors';
import { describeArgumentProblems, type ArgumentProblem, type ArgumentsValidator } from './arguments-validator';
import type { DenyVerdict } from './policy/decision-pipeline';
import type { RememberCall, RememberVerdict } from './policy/remember';
import type { PendingStore } from './pending-store';

/** The pipeline's deny step (decision-pipeline.ts `denyCheck`) against the rules in force now. */
export type DenyCheck = (call: {
  serverName: string;
  toolName: string;
  args: Record<string, unknown>;
}) => DenyVerdict | undefined;

/** `checkRemember` (policy/remember.ts) against the policy in force now. */
export type RememberCheck = (call: RememberCall, action: RememberAction) => RememberVerdict;

/** One thing wrong with an approval message; the message is refused whole when there is any. */
export interface SubmissionProblem {
  toolCallId: string;
  /** The call's tool as people name it (`Files.write_file`), when the call is known: errors name tools, not ids. */
  tool?: string;
  problem: string;
  /** Edited arguments: where each one fails the tool's input schema. */
  arguments?: readonly ArgumentProblem[];
  /** Edited arguments a deny rule refuses: which rule, in its words. */
  deniedBy?: DenyVerdict;
}

/** A checked answer, ready to record and apply. */
export interface CheckedApproval {
  readonly approval: ToolCallApproval;
  readonly request: ToolCallRequest;
  readonly exchangeId: string | null;
  /** What the policy remembers with this answer (docs/user/approvals.md), checked: the change and its words. */
  readonly remember?: { readonly update: PolicyUpdate; readonly words: string };
}

/**
 * Checks an approval message against what waits in THIS chat (docs/dev/architecture.md "The approval round trip"): every answer
 * names a call waiting here, each exactly once, every waiting call is answered, and edited arguments
 * fit the tool's input schema and pass the deny rules in force (the organisation's first): an edit must not turn a
 * call the person saw into one a deny rule refuses. Throws `invalid_input` listing every problem; nothing is applied then.
 */
export function checkSubmission(
  chatId: string,
  approvals: readonly ToolCallApproval[],
  store: PendingStore,
  validator: ArgumentsValidator,
  denyCheck: DenyCheck,
  rememberCheck?: RememberCheck,
): CheckedApproval[] {
  const problems: SubmissionProblem[] = [];
  const checked: CheckedApproval[] = [];
  const seen = new Set<string>();
  for (const approval of approvals) {
    const { toolCallId } = approval;
    if (seen.has(toolCallId)) {
      problems.push({ toolCallId, problem: 'is answered more than once in this message' });
      continue;
    }
    seen.add(toolCallId);
    const stored = store.get(chatId, toolCallId);
    if (!stored) {
      problems.push({
        toolCallId,
        problem: store.heldByAnotherChat(chatId, toolCallId)
          ? 'is not a call of this chat (it belongs to another chat); a chat can only answer its own approvals'
          : 'is not a tool call that waits for approval (unknown id)',
      });
      continue;
    }
    const { request } = stored.approval;
    const tool = `${request.serverName}.${request.toolName}`;
    if (stored.status !== 'pending') {
      problems.push({ toolCallId, tool, problem: `was already decided (${RESOLVED_WORDS[stored.status]})` });
      continue;
    }
    if (approval.editedArgs !== undefined) {
      if (approval.decision === 'TOOL_CALL_DECISION_DENY') {
        problems.push({
          toolCallId,
          tool,
          problem: 'has edited arguments with a deny decision; edits go only with an allow decision',
        });
        continue;
      }
      const result = validator.check(request.definitionHash, request.inputSchema, approval.editedArgs);
      if (!result.ok && 'schemaError' in result) {
        problems.push({
          toolCallId,
          tool,
          problem: `has edited arguments, but its input schema is invalid, so they cannot be checked (${result.schemaError}); allow the call as it is or deny it`,
        });
        continue;
      }
      if (!result.ok) {
        problems.push({
          toolCallId,
          tool,
          problem: `has edited arguments that do not fit its input schema: ${describeArgumentProblems(result.problems)}`,
          arguments: result.problems,
        });
        continue;
      }
      const denied = denyCheck({
        serverName: request.serverName,
        toolName: request.toolName,
        args: approval.editedArgs,
      });
      if (denied) {
        problems.push({
          toolCallId,
          tool,
          problem: `has edited arguments that a deny rule refuses (${denied.reason}); allow the call as it is, edit it again, or deny it`,
          deniedBy: denied,
        });
        continue;
      }
    }
    if (approval.remember !== undefined) {
      if (approval.decision === 'TOOL_CALL_DECISION_DENY') {
        problems.push({
          toolCallId,
          tool,
          problem: 'asks to remember an allow with a deny decision; remember goes only with an allow decision',
        });
        continue;
      }
      const call = {
        serverName: request.serverName,
        toolName: request.toolName,
        args: approval.editedArgs ?? request.args,
      };
      const verdict = rememberCheck
        ? rememberCheck(call, approval.remember)
        : ({ ok: false, refusal: 'remembering is not available here' } as const);
      if (!verdict.ok) {
        problems.push({ toolCallId, tool, problem: `cannot be remembered: ${verdict.refusal}` });
        continue;
      }
      checked.push({
        approval,
        request,
        exchangeId: stored.approval.exchangeId,
        remember: { update: verdict.update, words: verdict.words },
      });
      continue;
    }
    checked.push({ approval, request, exchangeId: stored.approval.exchangeId });
  }
  for (const waiting of store.waiting(chatId)) {
    if (!seen.has(waiting.request.toolCallId)) {
      problems.push({
        toolCallId: waiting.request.toolCallId,
        tool: `${waiting.request.serverName}.${waiting.request.toolName}`,
        problem: 'waits for a decision too; an approval message answers every call waiting in the chat',
      });
    }
  }
  if (problems.length > 0) {
    const text = problems
      .map((problem) => `${problem.tool ?? `tool call '${problem.toolCallId}'`} ${problem.problem}`)
      .join('; ');
    throw new WorkbenchError('invalid_input', `The approval was not applied: ${text}.`, { problems });
  }
  return checked;
}
