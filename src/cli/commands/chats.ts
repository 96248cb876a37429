import type { Command } from 'commander';
import { CHAT_APPROVAL_MODES, isOneOf } from '../../shared/closed-sets';
import type { ChatMessage } from '../../shared/messages';
import { CliError } from '../exit-codes';
import { act, actOnChats, leaf, resolveChatId, type ProgramOptions } from '../command-kit';
import { renderTranscript } from '../transcript';
import { table } from '../terminal';

/** `workbench chats …`: the chat list of the app. */
export function chatsCommand(program: Command, options: ProgramOptions): void {
  const chats = program.command('chats').description('list, show, rename and delete chats');

  actOnChats(leaf(chats, 'list', 'every chat, most recently used first'), options, async (context) => {
    const list = context.store.listChats();
    if (context.json) return context.terminal.json(list);
    if (list.length === 0) return context.terminal.line('No chats yet. Start one with: workbench chat');
    const { colors } = context.terminal;
    context.terminal.line(
      table([
        ['ID', 'UPDATED', 'MODEL', 'TITLE'].map((cell) => colors.bold(cell)),
        ...list.map((chat) => [
          chat.id.slice(0, 8),
          new Date(chat.updatedAt).toISOString().slice(0, 16).replace('T', ' '),
          chat.model ? `${chat.providerId}/${chat.model}` : '-',
          chat.title,
        ]),
      ]),
    );
  });

  act(
    leaf(chats, 'show <id>', 'the messages of a chat (an id, or the start of one)'),
    options,
    async (context, id: string) => {
      const chatId = await resolveChatId(context, id);
      const session = context.session();
      const chat = await session.call('chat.get', { id: chatId });
      const { messages, activity } = await session.call('chat.messages', { chatId });
      if (context.json) return context.terminal.json({ chat, messages, activity });
      context.terminal.line(context.terminal.colors.bold(`${chat.title}  ${context.terminal.colors.dim(chat.id)}`));
      context.terminal.line(renderTranscript(messages as ChatMessage[], context.terminal.colors));
      if (activity.status !== 'idle') context.terminal.line(context.terminal.colors.yellow(`(${activity.status})`));
    },
  );

  act(
    leaf(chats, 'rename <id> <title>', 'give a chat a new title'),
    options,
    async (context, id: string, title: string) => {
      const chat = await context.session().call('chat.rename', { id: await resolveChatId(context, id), title });
      if (context.json) return context.terminal.json(chat);
      context.terminal.line(`Renamed ${chat.id.slice(0, 8)} to "${chat.title}".`);
    },
  );

  act(
    leaf(chats, 'mode <id> [mode]', `show or set how a chat asks: ${CHAT_APPROVAL_MODES.join(', ')}`),
    options,
    async (context, id: string, mode: string | undefined) => {
      const chatId = await resolveChatId(context, id);
      const session = context.session();
      if (mode !== undefined && !isOneOf(CHAT_APPROVAL_MODES, mode)) {
        throw new CliError(
          `A chat's mode must be one of ${CHAT_APPROVAL_MODES.join(', ')}, not ${JSON.stringify(mode)}.`,
        );
      }
      const result =
        mode === undefined
          ? await session.call('approvals.getChatMode', { chatId })
          : await session.call('approvals.setChatMode', { chatId, mode });
      if (context.json) return context.terminal.json(result);
      context.terminal.line(
        `Chat ${chatId.slice(0, 8)}: ${result.mode}${result.mode === 'never-ask' ? context.terminal.colors.yellow(" (its tools run without asking, except what deny rules refuse and what an ask rule or a tool's 'always-ask' asks about)") : ''}`,
      );
    },
  );

  act(leaf(chats, 'delete <id>', 'delete a chat (its audit rows stay)'), options, async (context, id: string) => {
    const deleted = await context.session().call('chat.delete', { id: await resolveChatId(context, id) });
    if (context.json) return context.terminal.json(deleted);
    context.terminal.line(`Deleted chat ${deleted.id}.`);
  });
}
