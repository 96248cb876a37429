import { InvalidArgumentError, Option, type Command } from 'commander';
import { CliError, EXIT, type ExitCode } from './exit-codes';
import type { ChatStore } from './chat-store';
import type { CliSession } from './session';
import { createTerminal, type Terminal } from './terminal';

/** What every command's action gets: the terminal, the session (opened on first use) and `--json`. */
export interface CommandContext {
  readonly terminal: Terminal;
  readonly json: boolean;
  session(): CliSession;
}

/** What a command that only reads chat titles gets (`actOnChats`): the chat store instead of the session. */
export interface ChatsContext {
  readonly terminal: Terminal;
  readonly json: boolean;
  readonly store: ChatStore;
}

export interface ProgramOptions {
  version: string;
  /** Where a command's exit code goes; `process.exitCode` by default. */
  setExitCode?: (code: ExitCode) => void;
}

/** An action may answer its exit code; anything else (nothing) is success. */
type Action = (context: CommandContext, ...args: never[]) => Promise<unknown>;

/** A leaf command, with `--json`. */
export function leaf(parent: Command, nameAndArgs: string, description: string): Command {
  return parent.command(nameAndArgs).description(description).option('--json', 'print the result as JSON');
}

/**
 * A leaf command's action: opens the session lazily, turns errors into `workbench: message` and the right exit
 * code, and closes the session (stopping any MCP server it started) before the process ends.
 */
export function act(command: Command, options: ProgramOptions, action: Action): Command {
  return runLeaf(command, options, async (terminal, json, args) => {
    // The services (SQLite, SDKs, the MCP host) load only once a command runs: help, version and a bad flag stay quick.
    const { openSession } = await import('./session');
    let session: CliSession | undefined;
    const context: CommandContext = {
      terminal,
      json,
      session: () => (session ??= openSession({ version: options.version, command: commandPath(command) })),
    };
    try {
      return await (action as (context: CommandContext, ...args: unknown[]) => Promise<unknown>)(context, ...args);
    } finally {
      if (session) await session.close().catch(() => undefined);
    }
  });
}

/** `chat`, `approvals list`: the command's words after `workbench`. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * A leaf command that only reads the chat list: it opens the chat store (`chat-store.ts`), not the services, so it
 * starts near Node's own start (cli-start-list in docs/dev/benchmarks.md).
 */
export function actOnChats(
  command: Command,
  options: ProgramOptions,
  action: (context: ChatsContext) => Promise<unknown>,
): Command {
  return runLeaf(command, options, async (terminal, json) => {
    const { openChatStore } = await import('./chat-store');
    const store = openChatStore();
    try {
      return await action({ terminal, json, store });
    } finally {
      store.close();
    }
  });
}

/** Turns errors into `workbench: message` and the right exit code, which goes where `options` says. */
function runLeaf(
  command: Command,
  options: ProgramOptions,
  run: (terminal: Terminal, json: boolean, args: unknown[]) => Promise<unknown>,
): Command {
  return command.action(async (...raw: unknown[]) => {
    // commander passes the positional arguments, then the options object, then the command.
    const commandObject = raw.at(-1) as Command;
    const json = commandObject.opts<{ json?: boolean }>().json === true;
    const terminal = createTerminal();
    let code: ExitCode;
    try {
      const result = await run(terminal, json, raw.slice(0, -1));
      code = typeof result === 'number' ? (result as ExitCode) : EXIT.ok;
    } catch (error) {
      code = reportError(terminal, error, json);
    }
    (options.setExitCode ?? ((value) => (process.exitCode = value)))(code);
  });
}

export function reportError(terminal: Terminal, error: unknown, json = false): ExitCode {
  const known = error instanceof CliError;
  const message = error instanceof Error ? error.message : String(error);
  if (json) terminal.err.write(`${JSON.stringify({ error: { message, code: known ? error.code : EXIT.error } })}\n`);
  else terminal.note(`${terminal.colors.red('workbench:')} ${message}`);
  if (!known && process.env.WORKBENCH_DEBUG && error instanceof Error) terminal.note(error.stack ?? '');
  return known ? error.code : EXIT.error;
}

/** Parsers that name the flag and the bad value. */
export function integer(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim()))
      throw new InvalidArgumentError(
        `${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(value)}.`,
      );
    const number = Number(value);
    if (number < min || number > max)
      throw new InvalidArgumentError(`${flag} takes a whole number from ${min} to ${max}, not ${value}.`);
    return number;
  };
}

export function choice<T extends string>(flag: string, values: readonly T[]): Option {
  return new Option(flag).choices(values);
}

/** Parses a JSON object given on the command line, naming the argument when it is not one. */
export function jsonObject(what: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `${what} is not valid JSON (${(error as Error).message}): ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(`${what} must be a JSON object like {"path": "notes.txt"}, not ${text}.`);
  return value as Record<string, unknown>;
}

/** A chat named by its id or by a prefix of it that only one chat has (as git does with commits). */
export async function resolveChatId(context: CommandContext, given: string): Promise<string> {
  const { chats } = await context.session().call('chat.list');
  const exact = chats.find((chat) => chat.id === given);
  if (exact) return exact.id;
  const matches = chats.filter((chat) => chat.id.startsWith(given.toLowerCase()));
  if (matches.length === 1) return (matches[0] as { id: string }).id;
  if (matches.length > 1)
    throw new CliError(`The chat id prefix '${given}' fits ${matches.length} chats; give more of the id.`);
  throw new CliError(`No chat has the id '${given}'. List them with: workbench chats list`);
}
