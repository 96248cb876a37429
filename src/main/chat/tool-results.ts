import type { ToolCallRecord } from '../../shared/messages';
import type { ContentPart, ToolResult } from '../llm/conversation';

/** What a model is told when a person denied a call (seed 000's words). */
export const USER_DENIED_TEXT = 'User denied tool invocation';

/**
 * The result a model is sent for one call, whatever became of it. Every call the model made gets exactly one
 * result, so the conversation stays valid for every provider; none of the approval bookkeeping is sent, only
 * what the model needs to go on (what ran, or why it did not).
 */
export function toolResultFor(record: ToolCallRecord): ToolResult {
  const base = { toolCallId: record.modelCall.id, toolName: record.modelCall.name };
  const text = (value: string, isError = true): ToolResult => ({
    ...base,
    content: [{ type: 'text', text: value }],
    isError,
  });
  switch (record.status) {
    case 'success':
    case 'error': {
      if (!record.result) return text(record.error ?? 'The tool call failed.');
      const content: ContentPart[] = [];
      if (record.decision?.edited) {
        content.push({
          type: 'text',
          text: `Note: the user edited the arguments before allowing this call. It ran with: ${JSON.stringify(record.args)}`,
        });
      }
      content.push({ type: 'text', text: record.result.forModel.text });
      for (const part of record.result.content) {
        if (part.type === 'image' && /^image\/[\w.+-]+$/.test(part.mimeType))
          content.push({ type: 'image', mimeType: part.mimeType, data: part.data });
      }
      return { ...base, content, isError: record.result.isError };
    }
    case 'denied':
      if (record.decision?.actor === 'user') {
        const reason = record.decision.userReason?.trim();
        return text(reason ? `${USER_DENIED_TEXT}. The user's reason: ${reason}` : USER_DENIED_TEXT);
      }
      if (record.decision?.actor === 'system') return text(`Denied: ${record.decision.reason}. The tool did not run.`);
      return text(`Denied by policy: ${record.decision?.reason ?? 'a rule denied it'}. The tool did not run.`);
    case 'timeout':
      return text(
        `The approval request timed out: nobody allowed this tool call in time, so it did not run. ${record.decision?.reason ?? ''}`.trim(),
      );
    case 'cancelled':
      if (record.task) return text('The user cancelled this task before it completed; the server stopped it.');
      return text('The user stopped the chat before this tool call completed; it did not run to the end.');
    case 'pending':
      return text('This tool call is still waiting for the user to approve it.');
    case 'running':
      if (record.task)
        return text(
          'This tool call runs as a task that has not completed yet; its result will be added to this call when it does.',
        );
      return text('The app closed while this tool call was running; its result is unknown.');
    case 'interrupted':
      return text('The app closed while this tool call was running; its result is unknown.');
  }
}
