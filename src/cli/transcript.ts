import type { ChatMessage, ToolCallRecord } from '../shared/messages';
import { ranWithoutAsking } from '../shared/why-words';
import { formatDuration, type Colors } from './terminal';

const STATUS_WORDS: Record<ToolCallRecord['status'], string> = {
  pending: 'waiting for you',
  running: 'running',
  success: 'ok',
  error: 'error',
  denied: 'denied',
  timeout: 'timed out',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

/** `  ⏺ Files · write_file · ok · 12 ms` — one line per tool call (server · tool · status · duration), and why when it did not run. */
export function toolCallLine(call: ToolCallRecord, colors: Colors): string {
  const status = STATUS_WORDS[call.status];
  const paint =
    call.status === 'success'
      ? colors.green
      : call.status === 'running' || call.status === 'pending'
        ? colors.yellow
        : colors.red;
  const parts = [call.serverName || '?', call.toolName || call.modelCall.name, paint(status)];
  if (call.durationMs !== undefined) parts.push(formatDuration(call.durationMs));
  let line = `  ${paint('⏺')} ${parts.join(colors.dim(' · '))}`;
  if (call.decision?.edited) line += colors.dim(' (edited arguments)');
  // Ran only because approvals were off: said on its line, as on the app's block (docs/user/approvals.md#when-approvals-are-off).
  if (call.decision?.approvalsOff)
    line += colors.yellow(
      call.decision.approvalsOff === 'chat' ? ' (not asked: this chat never asks)' : ' (not asked: approvals off)',
    );
  const why =
    call.status === 'denied' || call.status === 'timeout' || call.status === 'cancelled' || call.status === 'error'
      ? call.decision?.userReason
        ? `${call.decision.reason}: "${call.decision.userReason}"`
        : (call.error ?? call.decision?.reason)
      : undefined;
  if (why) line += `\n      ${colors.dim(firstLine(why))}`;
  // A call that ran without asking says which rule or setting let it (docs/user/cli.md, "What reaches your terminal").
  else if (call.decision?.actor === 'policy' && call.decision.outcome === 'allow' && !call.decision.approvalsOff)
    line += `\n      ${colors.dim(firstLine(ranWithoutAsking(call.decision.reason)))}`;
  // A result with an MCP Apps view: the terminal cannot show it, so it says so and prints the text (docs/user/mcp-apps.md).
  if (call.viewUri && call.result) {
    const text = call.result.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n')
      .slice(0, VIEW_TEXT_MAX);
    line += `\n      ${colors.dim('This result has a view; it shows in the app.')}`;
    if (text) line += `\n${text.replace(/^/gm, '      ')}`;
  }
  return line;
}

/** The most text of a result with a view printed under its line. */
const VIEW_TEXT_MAX = 4000;

/** `    ↳ everything · trigger-long-running-operation · 3 of 5 (60%)` — a running call's progress (docs/user/mcp-servers.md#progress). */
export function progressLine(call: ToolCallRecord, colors: Colors): string | undefined {
  const progress = call.progress;
  if (call.status !== 'running' || !progress) return undefined;
  const known = progress.total !== undefined && progress.total > 0;
  // A task's progress is its status message (docs/user/mcp-servers.md#tasks): no count to show.
  const amount = call.task
    ? `task ${call.task.status.replace('_', ' ')}`
    : known
      ? `${progress.progress} of ${progress.total} (${Math.round((Math.min(progress.progress, progress.total as number) / (progress.total as number)) * 100)}%)`
      : `${progress.progress} so far`;
  const parts = [call.serverName || '?', call.toolName || call.modelCall.name, amount];
  if (progress.message) parts.push(firstLine(progress.message));
  return colors.dim(`    ↳ ${parts.join(' · ')}`);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** A whole chat for `chats show`: the same lines the live chat prints. */
export function renderTranscript(messages: readonly ChatMessage[], colors: Colors): string {
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        lines.push('', `${colors.bold(colors.cyan('›'))} ${colors.bold(message.text)}`);
        break;
      case 'assistant':
        for (const turn of message.reply.turns) {
          if (turn.message) lines.push(turn.message.trimEnd());
          for (const call of turn.toolCalls ?? []) lines.push(toolCallLine(call, colors));
        }
        break;
      case 'approval':
        break;
      case 'system':
        lines.push(colors.dim(`· ${message.text}`));
        break;
      case 'error':
        lines.push(colors.red(`error: ${message.error.message}`));
        break;
    }
  }
  return lines.join('\n');
}
