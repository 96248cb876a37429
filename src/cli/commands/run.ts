import { Option, type Command } from 'commander';
import { act, type ProgramOptions } from '../command-kit';
import type { Approver } from '../exchange';
import { CliError, EXIT } from '../exit-codes';
import { createLineReader, type LineReader } from '../line-reader';
import { chatFor, type ChatFlags } from './conversation-setup';

/** Recorded in the audit log (actor `system`) for each call no one could be asked about. */
export const NON_INTERACTIVE_REASON = "Denied by the CLI's non-interactive mode: no one at a terminal could be asked";
export const APPROVE_DENY_REASON = 'Denied by the CLI: the run was started with --approve deny';

/** `workbench run "PROMPT"`: one exchange, for scripts. */
export function runCommand(program: Command, options: ProgramOptions): void {
  const command = program
    .command('run [prompt...]')
    .description('send one message and print the reply; for scripts (the prompt may also come on stdin)')
    .option('--chat <id>', 'continue this chat (an id, or the start of one); a new chat otherwise')
    .option('--provider <id>', 'the provider to use (see: workbench providers list)')
    .option('--model <model>', 'the model to use')
    .addOption(
      new Option(
        '--approve <mode>',
        'calls the policy would ask you about: "policy" asks on a terminal and denies without one; "deny" denies them without asking',
      )
        .choices(['policy', 'deny'])
        .default('policy'),
    )
    .option('--json', 'print the outcome as JSON (chat, exchange, status, text, tool calls)')
    .addHelpText(
      'after',
      `
Calls your policy allows run; calls it denies do not. A call that needs a person is asked about when stdin and
stdout are a terminal; otherwise (a pipe, CI) it is denied, and the audit log records it as denied by the CLI's
non-interactive mode. The reply text goes to stdout, tool call lines to stderr. Exit code 2 when any call was denied.`,
    );
  act(command, options, async (context, words: string[], flags: ChatFlags & { approve: 'policy' | 'deny' }) => {
    const { terminal } = context;
    // The exchange and its prompts load with the command that runs them: `--help` and the other commands start
    // without them (docs/dev/benchmarks.md, `cli-start`).
    const [{ askAboutCalls }, { createExchangeDriver }, { askAboutServerRequest }] = await Promise.all([
      import('../approval-prompt'),
      import('../exchange'),
      import('../server-request-prompt'),
    ]);
    let prompt = words.join(' ').trim();
    if (prompt === '' && !process.stdin.isTTY) prompt = (await readAll(process.stdin)).trim();
    if (prompt === '') throw new CliError('Give the prompt: workbench run "PROMPT" (or pipe it on stdin).');
    const session = context.session();
    const chat = await chatFor(context, flags);
    // The tool loop waits for servers still starting; the prompt need not.
    void session.startServers();

    let reader: LineReader | undefined;
    let interrupts = 0;
    const onInterrupt = (): void => {
      interrupts++;
      if (interrupts > 1) process.exit(EXIT.interrupted);
      terminal.note(terminal.colors.yellow('Stopping… (Ctrl+C again to quit at once)'));
      driver.interrupt();
    };
    const askable = flags.approve === 'policy' && terminal.interactive;
    const approver: Approver = async (requests, waits) => {
      if (!askable)
        return { kind: 'unattended', reason: flags.approve === 'deny' ? APPROVE_DENY_REASON : NON_INTERACTIVE_REASON };
      reader ??= createLineReader(process.stdin, process.stderr, onInterrupt);
      const outcome = await askAboutCalls(requests, {
        reader,
        write: (text) => terminal.err.write(text),
        colors: terminal.colors,
        explain: (request) =>
          session.call('policy.explain', {
            server: request.serverName,
            tool: request.toolName,
            args: request.args,
            chatId: chat.id,
          }),
        rememberOptions: (request, args) =>
          session.call('approvals.rememberOptions', { chatId: chat.id, toolCallId: request.toolCallId, args }),
        waits,
      });
      if (outcome.kind === 'answers') return outcome;
      if (outcome.kind === 'closed') return { kind: 'unattended', reason: NON_INTERACTIVE_REASON };
      return { kind: 'stop' };
    };
    let atLineStart = true;
    const driver = createExchangeDriver(
      session,
      {
        text: (delta) => {
          if (context.json) return;
          terminal.out.write(delta);
          atLineStart = delta.endsWith('\n');
        },
        line: (text) => {
          if (context.json) return;
          if (!atLineStart) terminal.out.write('\n');
          atLineStart = true;
          terminal.err.write(`${text}\n`);
        },
      },
      terminal.colors,
      approver,
      async (request, gone) => {
        if (!askable)
          return {
            kind: 'unattended',
            reason: flags.approve === 'deny' ? APPROVE_DENY_REASON : NON_INTERACTIVE_REASON,
          };
        reader ??= createLineReader(process.stdin, process.stderr, onInterrupt);
        const outcome = await askAboutServerRequest(request, {
          reader,
          write: (text) => terminal.err.write(text),
          colors: terminal.colors,
          gone,
        });
        if (outcome.kind === 'decision' || outcome.kind === 'gone') return outcome;
        if (outcome.kind === 'closed') return { kind: 'unattended', reason: NON_INTERACTIVE_REASON };
        return { kind: 'stop' };
      },
    );
    process.on('SIGINT', onInterrupt);
    try {
      const outcome = await driver.send(chat.id, prompt);
      if (!context.json && !atLineStart) terminal.out.write('\n');
      if (context.json) {
        terminal.json({
          chatId: chat.id,
          exchangeId: outcome.exchangeId,
          status: outcome.status,
          ...(outcome.error ? { error: outcome.error } : {}),
          text: outcome.text,
          denied: outcome.denied,
          toolCalls: outcome.calls.map((call) => ({
            toolCallId: call.toolCallId,
            server: call.serverName,
            tool: call.toolName,
            args: call.args,
            status: call.status,
            decision: call.decision,
            durationMs: call.durationMs,
            error: call.error,
          })),
        });
      }
      if (outcome.status === 'error') return EXIT.error;
      if (outcome.status === 'stopped') return EXIT.interrupted;
      // A tool that failed is a failed call (docs/user/cli.md, "Exit codes"), even when the model went on.
      if (outcome.calls.some((call) => call.status === 'error')) return EXIT.error;
      return outcome.denied > 0 ? EXIT.denied : EXIT.ok;
    } finally {
      process.off('SIGINT', onInterrupt);
      reader?.close();
    }
  });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}
