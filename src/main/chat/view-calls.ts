import { WorkbenchError } from '../errors';
import type { ViewOrigin } from '../mcp/app-calls';
import type { MessageStore } from './message-store';

/**
 * The tool call whose MCP Apps view asks (docs/user/mcp-apps.md#what-a-view-may-ask): it must exist in the chat, have
 * ended with a result and have a view. Its server is the one the view's requests go to, never one the view names.
 */
export function findViewCall(messages: Pick<MessageStore, 'all'>, chatId: string, viewCallId: string): ViewOrigin {
  for (const message of messages.all(chatId)) {
    if (message.role !== 'assistant') continue;
    for (const turn of message.reply.turns)
      for (const call of turn.toolCalls ?? [])
        if (call.toolCallId === viewCallId && call.viewUri && call.serverName)
          return {
            serverName: call.serverName,
            viewUri: call.viewUri,
            exchangeId: message.exchangeId,
            ...(call.viewIdentity === undefined ? {} : { identity: call.viewIdentity }),
          };
  }
  throw new WorkbenchError('not_found', 'No tool call with a view by that id in this chat.', { viewCallId });
}
