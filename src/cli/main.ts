/**
 * The `workbench` command: the CLI host (ARCHITECTURE.md §7). The same services as the app and browser
 * mode, built by the same factory and called through the same contract dispatcher. Never loads `electron`.
 */
import { CommanderError } from 'commander';
import { version } from '../../package.json';
import { EXIT } from './exit-codes';
import { sanitizeForTerminal } from './terminal-text';
import { buildProgram, exitCodeOf } from './program';

// Ended by a signal other than Ctrl+C (a closed terminal, kill): exit normally, so 'exit' handlers stop the MCP servers.
for (const [signal, number] of [['SIGTERM', 15], ['SIGHUP', 1]] as const) process.on(signal, () => process.exit(128 + number));

async function main(): Promise<void> {
  let code: number = EXIT.ok;
  const program = buildProgram({ version, setExitCode: (value) => (code = value) });
  // A bare `workbench` shows the help.
  const argv = process.argv.length <= 2 ? [...process.argv, '--help'] : process.argv;
  try {
    await program.parseAsync(argv);
  } catch (error) {
    code = error instanceof CommanderError ? exitCodeOf(error) : EXIT.error;
    if (!(error instanceof CommanderError)) process.stderr.write(`workbench: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}\n`);
  }
  // Whatever is left (an idle socket of an SDK, a stdin listener) must not keep a finished command alive.
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}

void main();
