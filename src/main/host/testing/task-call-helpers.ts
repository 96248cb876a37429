/** What the tests of task calls across hosts and restarts share (task-restart.test.ts, task-follower.test.ts). */
import type { ToolCallRecord } from '../../../shared/messages';
import type { Services } from '../../services';

/** Resolves once `check` holds; fails naming `what` (and what `output` says) after `timeoutMs`. */
export async function until(
  check: () => boolean,
  what: string,
  timeoutMs = 30_000,
  output = (): string => '',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting until ${what}\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The chat's first tool call, as the host stores it. */
export const firstCallOf = (open: Services, chatId: string): ToolCallRecord | undefined =>
  open.conversations
    .messages(chatId)
    .messages.flatMap((message) =>
      message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
    )
    .at(0);
