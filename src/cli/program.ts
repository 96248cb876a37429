import { Command, type CommanderError } from 'commander';
import type { ProgramOptions } from './command-kit';
import { approvalsCommand } from './commands/approvals';
import { auditCommand } from './commands/audit';
import { chatCommand } from './commands/chat';
import { chatsCommand } from './commands/chats';
import { policyCommand } from './commands/policy';
import { providersCommand } from './commands/providers';
import { runCommand } from './commands/run';
import { resourcesCommand } from './commands/resources';
import { serversCommand } from './commands/servers';
import { EXIT_CODES_HELP } from './exit-codes';

/** The top-level commands, in the order the help lists them. */
const COMMANDS: readonly (readonly [name: string, register: (program: Command, options: ProgramOptions) => void])[] = [
  ['chat', chatCommand],
  ['run', runCommand],
  ['chats', chatsCommand],
  ['approvals', approvalsCommand],
  ['servers', serversCommand],
  ['resources', resourcesCommand],
  ['policy', policyCommand],
  ['audit', auditCommand],
  ['providers', providersCommand],
];

/** The `workbench` command tree; `commandWord` is the first argument (`run`, `chats`, …), when there is one. */
export function buildProgram(options: ProgramOptions, commandWord?: string): Command {
  const program = new Command('workbench')
    .description(
      'AI Workbench in a terminal: chat with LLMs that use MCP tools — no tool runs unless you, or a rule you set, allowed it.',
    )
    .version(options.version, '-v, --version')
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'workbench: ')) })
    .addHelpText(
      'after',
      `
Data: the same folder as the app (WORKBENCH_HOME, or the OS app-data folder): chats, settings, policy and the
audit log are shared with the desktop app and browser mode, also while they run.
Every command takes --help; management commands take --json. Colours only on a terminal, never with NO_COLOR.

${EXIT_CODES_HELP}`,
    );
  // Only the command named on the command line is built (each start saves a few ms of commander setup; see cli-start
  // in docs/dev/benchmarks.md); the whole tree for the help, a bare flag or a name no command has.
  const named = COMMANDS.find(([name]) => name === commandWord);
  for (const [, register] of named ? [named] : COMMANDS) register(program, options);
  // Parse errors (an unknown flag, a bad choice) end with exit code 1 like every other error.
  program.exitOverride();
  for (const command of allCommands(program)) command.exitOverride();
  return program;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

/** Help and version end with 0; everything else commander refuses ends with 1. */
export function exitCodeOf(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help')
    return 0;
  return 1;
}
