import type { Command } from 'commander';
import type { PendingApproval, ToolCallApproval } from '../../shared/approval';
import { SERVER_REQUEST_ACTION_WORDS } from '../../shared/decisions';
import type { ServerRequestView } from '../../shared/server-request-views';
import { act, leaf, type CommandContext, type ProgramOptions } from '../command-kit';
import { CliError } from '../exit-codes';
import type { CliSession } from '../session';
import { table } from '../terminal';
import { requestDecision, requestKind, requestWhat, requestWhy, type RequestFlags } from './approvals-requests';

/** What `approvals allow|deny` answers for one chat. */
interface ChatAnswer {
  chatId: string;
  approvals: ToolCallApproval[];
}

/**
 * `workbench approvals …`: the inbox at the terminal (docs/user/cli.md, "approvals"). Lists what waits on the person
 * in every chat and process, and answers it from another terminal: tool calls through the same `chat.send` approval
 * message as the app (the exchange then continues in this process until it ends or waits again); a server's request
 * or a view's call through `serverRequests.decide`, which takes the answer to the process that holds it.
 */
export function approvalsCommand(program: Command, options: ProgramOptions): void {
  const approvals = program
    .command('approvals')
    .description('the inbox: what waits for you in every chat, answered from here');

  act(leaf(approvals, 'list', 'every waiting tool call and server request, oldest first'), options, async (context) => {
    const session = context.session();
    const [{ calls: sorted, requests }, { chats }] = await Promise.all([
      waitingNow(session),
      session.call('chat.list'),
    ]);
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
        ...requests.map((request) => [
          request.id,
          requestKind(request),
          title(request.chatId),
          requestWhat(request),
          duration(now - request.createdAt),
          'expiresAt' in request && request.expiresAt ? duration(request.expiresAt - now) : 'no limit',
          requestWhy(request),
        ]),
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
        ? 'allow these waiting calls and requests once (ids or their first characters, from approvals list)'
        : 'deny these waiting calls and requests',
    );
    if (verb === 'deny')
      command
        .option('--reason <text>', 'told to the model (or the server) with the denial')
        .option('--cancel', 'a form or a page to open: cancel it rather than decline it');
    else
      command.option(
        '--field <name=value>',
        "a form's field, for accepting it (repeat for each field)",
        (value: string, previous: string[] = []) => [...previous, value],
      );
    act(command, options, async (context, ids: string[], flags: RequestFlags) => {
      const session = context.session();
      const { calls: waiting, requests } = await waitingNow(session);
      // A server's request (or a view's call) is answered in the process that holds it; tool calls run here.
      const picked = new Map<string, ServerRequestView>();
      const callIds: string[] = [];
      for (const id of ids) {
        const request = requests.find((item) => item.id === id) ?? uniquePrefix(requests, id);
        if (request && !waiting.some((call) => call.request.toolCallId.startsWith(id))) picked.set(request.id, request);
        else if (request || waiting.some((call) => call.request.toolCallId.startsWith(id))) callIds.push(id);
        else {
          // Not waiting: say why when it is a request that did (decided, or its process ended).
          const why = session.services.approvals.pending.serverRequests.whyNotAnswerable(id);
          if (why && why.code !== 'not_found') throw new CliError(why.message);
          callIds.push(id);
        }
      }
      const decisions = [...picked.values()].map((request) => ({
        request,
        decision: requestDecision(request, verb, flags),
      }));
      if ((flags.field?.length ?? 0) > 0 && decisions.filter(({ decision }) => decision.content).length !== 1)
        throw new CliError('--field answers one form: name exactly one form with it.');
      const answers = callIds.length > 0 ? answersFor(waiting, callIds, verb, flags.reason) : [];
      const applied: { id: string; kind: string; what: string; action: string }[] = [];
      for (const { request, decision } of decisions) {
        await session.call('serverRequests.decide', { id: request.id, decision });
        applied.push({
          id: request.id,
          kind: requestKind(request),
          what: requestWhat(request),
          action: decision.action,
        });
      }
      // The tools run here once allowed: their servers must be up.
      if (answers.length > 0) await session.startServers();
      const done: { chatId: string; status: string; count: number }[] = [];
      for (const answer of answers) {
        await session.call('chat.send', {
          chatId: answer.chatId,
          message: { role: 'approval', toolCallApprovals: answer.approvals },
        });
        const activity = await session.services.conversations.settled(answer.chatId);
        done.push({ chatId: answer.chatId, status: activity.status, count: answer.approvals.length });
      }
      if (context.json) return context.terminal.json(answers.length > 0 || applied.length === 0 ? done : applied);
      for (const item of applied)
        context.terminal.line(
          `${SERVER_REQUEST_ACTION_WORDS[item.action as keyof typeof SERVER_REQUEST_ACTION_WORDS] ?? item.action}: the ${item.kind} ${item.what} (${item.id.slice(0, 12)}); applied where it waits.`,
        );
      printDone(context, done, verb);
    });
  }
}

/** A request named by the first characters of its id; throws when they fit several. */
function uniquePrefix(requests: readonly ServerRequestView[], id: string): ServerRequestView | undefined {
  const matches = requests.filter((request) => request.id.startsWith(id));
  if (matches.length > 1)
    throw new CliError(`The id '${id}' fits ${matches.length} waiting requests; give more of it.`);
  return matches[0];
}

/**
 * Everything that waits on the person: the tool calls of every chat, and the requests of servers and views held by
 * any running process (the answers inbox takes an answer to the process that holds one; docs/user/approvals.md#one-inbox).
 */
async function waitingNow(session: CliSession): Promise<{ calls: PendingApproval[]; requests: ServerRequestView[] }> {
  const [{ approvals: calls }, { requests: here }] = await Promise.all([
    session.call('approvals.pending', {}),
    session.call('serverRequests.list', {}),
  ]);
  const anywhere = session.services.approvals.pending.serverRequests.waitingAnywhere().map(({ request }) => request);
  const requests = [...here, ...anywhere.filter((request) => !here.some((item) => item.id === request.id))].sort(
    (a, b) => a.createdAt - b.createdAt,
  );
  return { calls: [...calls].sort((a, b) => a.createdAt - b.createdAt), requests };
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
