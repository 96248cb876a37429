import type { Command } from 'commander';
import type { PendingApproval, ToolCallApproval } from '../../shared/approval';
import { act, leaf, type CommandContext, type ProgramOptions } from '../command-kit';
import { CliError } from '../exit-codes';
import { table } from '../terminal';

/** What `approvals allow|deny` answers for one chat. */
interface ChatAnswer {
  chatId: string;
  approvals: ToolCallApproval[];
}

/**
 * `workbench approvals …`: the inbox at the terminal (docs/user/cli.md, "approvals"). Lists what waits on the person
 * in every chat, and answers tool calls from another terminal through the same `chat.send` approval message as the
 * app; the exchange then continues in this process until it ends or waits again.
 */
export function approvalsCommand(program: Command, options: ProgramOptions): void {
  const approvals = program
    .command('approvals')
    .description('the inbox: what waits for you in every chat, answered from here');

  act(leaf(approvals, 'list', 'every waiting tool call and server request, oldest first'), options, async (context) => {
    const session = context.session();
    const [{ approvals: calls }, { requests }, { chats }] = await Promise.all([
      session.call('approvals.pending', {}),
      session.call('serverRequests.list', {}),
      session.call('chat.list'),
    ]);
    const sorted = [...calls].sort((a, b) => a.createdAt - b.createdAt);
    if (context.json) return context.terminal.json({ toolCalls: sorted, serverRequests: requests });
    if (sorted.length === 0 && requests.length === 0) return context.terminal.line('Nothing waits for you.');
    const { colors } = context.terminal;
    const title = (chatId: string | null): string =>
      chatId === null ? '-' : (chats.find((chat) => chat.id === chatId)?.title ?? chatId.slice(0, 8));
    const now = Date.now();
    context.terminal.line(
      table([
        ['ID', 'KIND', 'CHAT', 'WHAT', 'WAITING', 'LEFT', 'WHY'].map((cell) => colors.bold(cell)),
        ...sorted.map((call) => [
          call.request.toolCallId,
          'tool call',
          title(call.chatId),
          `${call.request.serverName}.${call.request.toolName}`,
          duration(now - call.createdAt),
          call.expiresAt === null ? 'no limit' : duration(call.expiresAt - now),
          call.request.decision.reason,
        ]),
        ...requests.map((request) =>
          request.kind === 'app-tool-call'
            ? [
                request.id,
                'app tool call',
                title(request.chatId),
                `${request.serverName}.${request.toolName}`,
                duration(now - request.createdAt),
                request.expiresAt ? duration(request.expiresAt - now) : 'no limit',
                `requested by the app of ${request.serverName}, not by the model (answer it in the app, below its view)`,
              ]
            : [
                request.id,
                request.kind,
                title(request.chatId),
                request.serverName,
                duration(now - request.createdAt),
                '-',
                'a server asks (answer it where its server runs)',
              ],
        ),
      ]),
    );
    for (const call of sorted)
      context.terminal.line(
        colors.dim(`${call.request.toolCallId.slice(0, 8)} arguments: ${JSON.stringify(call.request.args)}`),
      );
  });

  for (const verb of ['allow', 'deny'] as const) {
    const command = leaf(
      approvals,
      `${verb} <ids...>`,
      verb === 'allow'
        ? 'allow these waiting tool calls once (ids or their first characters, from approvals list)'
        : 'deny these waiting tool calls',
    );
    if (verb === 'deny') command.option('--reason <text>', 'told to the model with the denial');
    act(command, options, async (context, ids: string[], flags: { reason?: string }) => {
      const session = context.session();
      const [{ approvals: waiting }, { requests }] = await Promise.all([
        session.call('approvals.pending', {}),
        session.call('serverRequests.list', {}),
      ]);
      // A view's call is held by the app that shows the view: only there can it run once allowed.
      for (const id of ids) {
        const app = requests.find((request) => request.kind === 'app-tool-call' && request.id.startsWith(id));
        if (app && !waiting.some((call) => call.request.toolCallId.startsWith(id)))
          throw new CliError(
            `'${app.id}' is a call the app of ${app.serverName} asked for in its view; it runs in the app that shows the view, so answer it there (below the view, or in "Waiting for you").`,
          );
      }
      const answers = answersFor(waiting, ids, verb, flags.reason);
      // The tools run here once allowed: their servers must be up.
      await session.startServers();
      const done: { chatId: string; status: string; count: number }[] = [];
      for (const answer of answers) {
        await session.call('chat.send', {
          chatId: answer.chatId,
          message: { role: 'approval', toolCallApprovals: answer.approvals },
        });
        const activity = await session.services.conversations.settled(answer.chatId);
        done.push({ chatId: answer.chatId, status: activity.status, count: answer.approvals.length });
      }
      if (context.json) return context.terminal.json(done);
      printDone(context, done, verb);
    });
  }
}

/**
 * The answers to send: every id names one waiting call (a unique prefix will do), and a chat's waiting calls are
 * answered in one message, all of them — so each chat named must have all its waiting calls named.
 */
export function answersFor(
  waiting: readonly PendingApproval[],
  ids: readonly string[],
  verb: 'allow' | 'deny',
  reason?: string,
): ChatAnswer[] {
  const chosen = new Map<string, PendingApproval>();
  for (const id of ids) {
    const matches = waiting.filter((call) => call.request.toolCallId.startsWith(id));
    const exact = matches.find((call) => call.request.toolCallId === id);
    if (!exact && matches.length === 0)
      throw new CliError(`No tool call waits by the id '${id}'. List them with: workbench approvals list`);
    if (!exact && matches.length > 1)
      throw new CliError(`The id '${id}' fits ${matches.length} waiting calls; give more of it.`);
    const call = exact ?? (matches[0] as PendingApproval);
    chosen.set(call.request.toolCallId, call);
  }
  const byChat = new Map<string, PendingApproval[]>();
  for (const call of chosen.values()) byChat.set(call.chatId, [...(byChat.get(call.chatId) ?? []), call]);
  const decision = verb === 'allow' ? 'TOOL_CALL_DECISION_ALLOW_ONCE' : 'TOOL_CALL_DECISION_DENY';
  return [...byChat].map(([chatId, calls]) => {
    const others = waiting.filter((call) => call.chatId === chatId && !chosen.has(call.request.toolCallId));
    if (others.length > 0)
      throw new CliError(
        `The calls of one chat are answered together: also name ${others
          .map((call) => `${call.request.serverName}.${call.request.toolName} (${call.request.toolCallId})`)
          .join(
            ', ',
          )}. To allow some and deny others, answer them in the app or in: workbench chat --chat ${chatId.slice(0, 8)}`,
      );
    return {
      chatId,
      approvals: calls.map((call) => ({
        toolCallId: call.request.toolCallId,
        decision,
        ...(reason === undefined ? {} : { reason }),
      })),
    };
  });
}

function printDone(
  context: CommandContext,
  done: readonly { chatId: string; status: string; count: number }[],
  verb: 'allow' | 'deny',
): void {
  for (const item of done) {
    const calls = item.count === 1 ? '1 call' : `${item.count} calls`;
    const after =
      item.status === 'waiting-approval'
        ? 'the chat waits for you again (workbench approvals list)'
        : 'the chat went on and is idle';
    context.terminal.line(
      `${verb === 'allow' ? 'Allowed' : 'Denied'} ${calls} in chat ${item.chatId.slice(0, 8)}; ${after}.`,
    );
  }
}

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}
