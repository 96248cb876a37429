import type { Chat } from '../../shared/chat';
import { resolveChatId, type CommandContext } from '../command-kit';

export interface ChatFlags {
  chat?: string;
  provider?: string;
  model?: string;
}

/** The chat to talk in: the one named (reconfigured when --provider/--model are given), or a new one. */
export async function chatFor(context: CommandContext, flags: ChatFlags): Promise<Chat> {
  const session = context.session();
  if (flags.chat === undefined) {
    return session.call('chat.create', {
      ...(flags.provider ? { providerId: flags.provider } : {}),
      ...(flags.model ? { model: flags.model } : {}),
    });
  }
  const id = await resolveChatId(context, flags.chat);
  if (flags.provider === undefined && flags.model === undefined) return session.call('chat.get', { id });
  return session.call('chat.configure', {
    id,
    ...(flags.provider ? { providerId: flags.provider } : {}),
    ...(flags.model ? { model: flags.model } : {}),
  });
}
