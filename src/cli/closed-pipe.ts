/**
 * Output piped into a reader that stops early (`workbench audit query | head -1`): the reader has all it wanted,
 * so the command ends quietly, with the exit code 0, instead of dying with an EPIPE stack trace
 * (docs/user/cli.md, "Exit codes"). Any other write error is still an error.
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WriteStream[], exit: (code: number) => void): void {
  let ended = false;
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      if (ended) return;
      ended = true;
      exit(0);
    });
  }
}
