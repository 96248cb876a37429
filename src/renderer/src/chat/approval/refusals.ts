import { isWorkbenchErrorData } from '../../../../shared/error-data';

/**
 * The calls an approval message was refused for, each with the words its card shows (docs/user/approvals.md,
 * "Deny rules cannot be edited or waited past"): an edit a deny rule refuses names the rule; an edit that does not
 * fit the tool's input schema says where. Read from the refusal's `details.problems` (approval-submission.ts).
 */
export function refusedCalls(error: unknown): Map<string, string> {
  const refused = new Map<string, string>();
  if (!isWorkbenchErrorData(error)) return refused;
  const problems = (error.details as { problems?: unknown } | undefined)?.problems;
  if (!Array.isArray(problems)) return refused;
  for (const item of problems) {
    if (typeof item !== 'object' || item === null) continue;
    const { toolCallId, deniedBy, problem } = item as {
      toolCallId?: unknown;
      deniedBy?: { reason?: unknown };
      problem?: unknown;
      arguments?: unknown;
    };
    if (typeof toolCallId !== 'string') continue;
    if (deniedBy && typeof deniedBy.reason === 'string')
      refused.set(
        toolCallId,
        `Not allowed with these arguments — ${deniedBy.reason}. Allow it as the model sent it, edit it again, or deny it.`,
      );
    else if (Array.isArray((item as { arguments?: unknown }).arguments) && typeof problem === 'string')
      refused.set(toolCallId, `Not allowed: this call ${problem}.`);
  }
  return refused;
}
