import type { Command } from 'commander';
import { act, type ProgramOptions } from '../command-kit';
import type { Approver } from '../exchange';
import { CliError, EXIT, type ExitCode } from '../exit-codes';
import { ABANDONED, createLineReader, INTERRUPTED } from '../line-reader';
import { renderForTerminal } from '../terminal';
import { renderTranscript } from '../transcript';
import { chatFor, type ChatFlags } from './conversation-setup';

const HELP_LINE =
  "Type a message and press Enter. /prompts lists the servers' prompts. /exit or Ctrl+D quits; Ctrl+C stops a reply, and a second Ctrl+C quits.";

/** `workbench chat`: the chat tab of the app, in a terminal (seed 000 "CLI support"). */
export function chatCommand(program: Command, options: ProgramOptions): void {
  const command = program
    .command('chat')
    .description(
      'chat interactively: streamed replies, tool call lines, and an approval prompt for each call that needs you',
    )
    .option('--chat <id>', 'continue this chat (an id, or the start of one); a new chat otherwise')
    .option('--provider <id>', 'the provider to use (see: workbench providers list)')
    .option('--model <model>', 'the model to use');
  act(command, options, async (context, flags: ChatFlags) => {
    const { terminal } = context;
    const { colors } = terminal;
    if (!terminal.interactive)
      throw new CliError(
        'workbench chat needs a terminal (stdin and stdout). For scripts and pipes use: workbench run "PROMPT"',
      );
    // The exchange and its prompts load with the command that runs them: `--help` and the other commands start
    // without them (docs/dev/benchmarks.md, `cli-start`).
    const [
      { askAboutCalls },
      { createExchangeDriver },
      { askAboutServerRequest },
      { runPromptCommand },
      { askAboutIdentity },
      { followSettings },
    ] = await Promise.all([
      import('../approval-prompt'),
      import('../exchange'),
      import('../server-request-prompt'),
      import('../prompt-command'),
      import('../identity-prompt'),
      import('../settings-follow'),
    ]);
    const session = context.session();
    let chat = await chatFor(context, flags);
    terminal.line(
      `${colors.bold('AI Workbench')} ${colors.dim('·')} ${chat.title} ${colors.dim(`· ${chat.providerId ?? 'no provider'}/${chat.model ?? 'no model'} · ${chat.id.slice(0, 8)}`)}`,
    );
    terminal.line(colors.dim(HELP_LINE));
    if (flags.chat !== undefined) {
      const { messages } = await session.call('chat.messages', { chatId: chat.id, limit: 20 });
      if (messages.length > 0) terminal.line(renderTranscript(messages, colors));
    }
    // The tool loop waits for servers still starting; the prompt need not.
    void session.startServers();
    // settings.json is followed while the chat runs, as the app does (docs/user/cli.md#settingsjson-while-chat-runs):
    // a problem is printed once, and a server whose identity is not accepted is asked about at the prompt, or at once
    // while a reply streams (before the approval prompt of any call, so none of its calls is decided first).
    let wake = new AbortController();
    // Whether a reply streams now (the driver's, once it exists: the follower may speak while it is made).
    let streaming = (): boolean => false;
    const follower = followSettings(session, () => {
      wake.abort();
      if (streaming()) void exclusive(askWhileStreaming);
    });
    // One question at a time on the terminal: the follower's, the calls', the servers' requests'.
    let prompting: Promise<unknown> = Promise.resolve();
    const exclusive = <T>(ask: () => Promise<T>): Promise<T> => {
      const asked = prompting.then(ask);
      prompting = asked.catch(() => undefined);
      return asked;
    };
    // While a question is asked in the middle of a reply, what the reply shows meanwhile waits below it.
    let held: (() => void)[] | null = null;
    const show = (write: () => void): void => void (held ? held.push(write) : write());

    let interrupts = 0;
    let resolveExit: ((code: ExitCode) => void) | undefined;
    const exited = new Promise<ExitCode>((resolve) => (resolveExit = resolve));
    const onInterrupt = (): void => {
      interrupts++;
      if (interrupts > 1) return resolveExit?.(EXIT.interrupted);
      if (driver.busy) {
        terminal.line(colors.yellow('\nStopping the reply… (Ctrl+C again to quit)'));
        driver.interrupt();
      }
    };
    const reader = createLineReader(process.stdin, process.stdout, onInterrupt);
    let atLineStart = true;
    const approver: Approver = (requests, waits) => exclusive(() => askCalls(requests, waits));
    const askCalls: Approver = async (requests, waits) => {
      if (!atLineStart) terminal.out.write('\n');
      atLineStart = true;
      // What a server runs changed and nobody was asked yet: asked first, so no call of it is decided before.
      if ((await answerFollower()) === 'closed') return { kind: 'stop' };
      const outcome = await askAboutCalls(requests, {
        reader,
        write: (text) => void terminal.out.write(text),
        colors,
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
      if (outcome.kind === 'interrupted') interrupts++;
      return { kind: 'stop' };
    };
    const driver = createExchangeDriver(
      session,
      {
        text: (delta) =>
          show(() => {
            terminal.out.write(delta);
            atLineStart = delta.endsWith('\n');
          }),
        line: (text) =>
          show(() => {
            if (!atLineStart) terminal.out.write('\n');
            atLineStart = true;
            terminal.out.write(`${text}\n`);
          }),
      },
      colors,
      approver,
      (request, gone) =>
        exclusive(async () => {
          if (!atLineStart) terminal.out.write('\n');
          atLineStart = true;
          const outcome = await askAboutServerRequest(request, {
            reader,
            write: (text) => void terminal.out.write(text),
            colors,
            gone,
          });
          if (outcome.kind === 'decision' || outcome.kind === 'gone') return outcome;
          if (outcome.kind === 'interrupted') interrupts++;
          return { kind: 'stop' as const };
        }),
    );

    /** What the follower has to say, said at the prompt: settings problems, then the servers waiting to be accepted. */
    const answerFollower = async (): Promise<'closed' | undefined> => {
      for (const problem of follower.takeProblems()) terminal.line(colors.yellow(`settings.json: ${problem}`));
      for (const { server, change } of follower.takeQuestions()) {
        // Accepted or changed again meanwhile (in the app, or by another command): nothing to ask about this one.
        const now = session.services.mcpServers.list().find((item) => item.name === server);
        if (!now?.enabled || now.identityChanged?.current !== change.current) continue;
        // While the question is open, a call of the server that was allowed waits for the answer (mcp-host.ts).
        const question = session.services.mcp.askAcceptance(server);
        let accepted = false;
        try {
          const outcome = await askAboutIdentity(server, change, {
            reader,
            write: (text) => void terminal.out.write(text),
            colors,
          });
          if (outcome.kind === 'closed') return 'closed';
          if (outcome.kind === 'accept') {
            try {
              // Accepted only if it still runs what the person was shown (changed again meanwhile: refused).
              await session.call('mcp.edit', { name: server, acceptIdentity: true, acceptedIdentity: change.current });
              accepted = true;
              terminal.line(`${server} runs ${change.current} now: it starts, and your settings count for it.`);
            } catch (error) {
              terminal.line(colors.red(`error: ${error instanceof Error ? error.message : String(error)}`));
            }
          } else {
            terminal.line(colors.dim(`${server} stays stopped. To start it later: workbench servers accept ${server}`));
          }
        } finally {
          question.answer(accepted);
        }
      }
      return undefined;
    };

    streaming = () => driver.busy;

    /** The follower's questions, asked in the middle of a reply: what streams meanwhile is shown once they are answered. */
    const askWhileStreaming = async (): Promise<void> => {
      if (!streaming()) return;
      held = [];
      try {
        if (!atLineStart) terminal.out.write('\n');
        atLineStart = true;
        if ((await answerFollower()) === 'closed') resolveExit?.(EXIT.ok);
      } finally {
        const waiting = held;
        held = null;
        for (const write of waiting) write();
      }
    };

    const converse = async (): Promise<ExitCode> => {
      // Calls may already wait in this chat (asked in the app, or before a restart): answer them first.
      if ((await session.call('chat.messages', { chatId: chat.id, limit: 1 })).activity.status === 'waiting-approval') {
        await driver.send(chat.id, null);
      }
      for (;;) {
        if ((await exclusive(answerFollower)) === 'closed') return EXIT.ok;
        wake = new AbortController();
        const line = await reader.askUnless(renderForTerminal(colors.bold(colors.cyan('› '))), wake.signal);
        // The follower has something to say (askUnless left the prompt on a fresh row): said at the top of the loop.
        if (line === ABANDONED) continue;
        if (line === null) return EXIT.ok;
        if (line === INTERRUPTED) {
          interrupts++;
          if (interrupts > 1) return EXIT.interrupted;
          terminal.line(colors.dim('(Ctrl+C again to quit, or type /exit)'));
          continue;
        }
        interrupts = 0;
        const text = line.trim();
        if (text === '') continue;
        if (text === '/exit' || text === '/quit') return EXIT.ok;
        if (text === '/help') {
          terminal.line(colors.dim(HELP_LINE));
          continue;
        }
        let message = text;
        // A server's prompt (docs/user/mcp-servers.md#prompts): sent only once the person has read it and said y.
        if (/^\/[^\s/]/.test(text)) {
          const prompted = await runPromptCommand(text, {
            session,
            reader,
            write: (words) => void terminal.out.write(words),
            colors,
          });
          if (prompted.kind === 'closed') return EXIT.ok;
          if (prompted.kind === 'interrupted') interrupts++;
          if (prompted.kind !== 'send') continue;
          message = prompted.text;
        }
        try {
          const outcome = await driver.send(chat.id, message);
          if (!atLineStart) terminal.out.write('\n');
          atLineStart = true;
          if (outcome.status === 'stopped' && interrupts > 1) return EXIT.interrupted;
          chat = await session.call('chat.get', { id: chat.id });
        } catch (error) {
          if (!atLineStart) terminal.out.write('\n');
          atLineStart = true;
          terminal.line(colors.red(`error: ${error instanceof Error ? error.message : String(error)}`));
        }
      }
    };
    try {
      return await Promise.race([converse(), exited]);
    } finally {
      follower.close();
      reader.close();
    }
  });
}
