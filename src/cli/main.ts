/**
 * The `workbench` command: the CLI host (docs/dev/architecture.md "Hosts"). The same services as the app and browser
 * mode, built by the same factory and called through the same contract dispatcher. Never loads `electron`.
 */
import { CommanderError } from 'commander';
import { version } from '../../package.json';
import { EXIT } from './exit-codes';
import { exitOnSignals, stopRunningLifecycles } from '../main/shutdown';
import { sanitizeForTerminal } from './terminal-text';
import { buildProgram, exitCodeOf } from './program';
import { endQuietlyOnClosedPipe } from './closed-pipe';

// Ended by a signal other than Ctrl+C (a closed terminal, kill): stop the services in order (exchanges, MCP servers,
// database) and exit with 128 + the signal's number. Ctrl+C is the chat's own (stop the reply, then quit).
exitOnSignals({ signals: { SIGTERM: 128 + 15, SIGHUP: 128 + 1 }, stop: stopRunningLifecycles });
// A reader that closed its end (`| head -1`): stop the services in order and end quietly.
endQuietlyOnClosedPipe([process.stdout, process.stderr], (code) => {
  void stopRunningLifecycles().finally(() => process.exit(code));
});

async function main(): Promise<void> {
  let code: number = EXIT.ok;
  // A bare `workbench` shows the help.
  const argv = process.argv.length <= 2 ? [...process.argv, '--help'] : process.argv;
  const program = buildProgram({ version, setExitCode: (value) => (code = value) }, argv[2]);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    code = error instanceof CommanderError ? exitCodeOf(error) : EXIT.error;
    if (!(error instanceof CommanderError))
      process.stderr.write(
        `workbench: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}\n`,
      );
  }
  // Whatever is left (an idle socket of an SDK, a stdin listener) must not keep a finished command alive.
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
}

void main();
