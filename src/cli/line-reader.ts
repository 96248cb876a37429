import readline from 'node:readline';

/** What `ask` answers when the person pressed Ctrl+C instead of Enter. */
export const INTERRUPTED = Symbol('interrupted');
export type Answer = string | null | typeof INTERRUPTED;

/**
 * The terminal's input, a line at a time. `ask` answers the line typed, `null` at end of input (Ctrl+D), or
 * `INTERRUPTED` for Ctrl+C; a Ctrl+C while nothing is asked (a reply streams) goes to `onInterrupt`.
 */
export interface LineReader {
  ask(prompt: string): Promise<Answer>;
  /** Hands the terminal to another program ($EDITOR) and takes it back afterwards. */
  suspend<T>(work: () => T): T;
  close(): void;
}

export function createLineReader(input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }, output: NodeJS.WritableStream, onInterrupt: () => void): LineReader {
  const rl = readline.createInterface({ input, output, terminal: input.isTTY === true, historySize: 100 });
  let waiting: ((answer: Answer) => void) | null = null;
  let closed = false;
  const settle = (answer: Answer): void => {
    const resolve = waiting;
    waiting = null;
    resolve?.(answer);
  };
  rl.on('line', (line) => settle(line));
  rl.on('close', () => {
    closed = true;
    settle(null);
  });
  rl.on('SIGINT', () => {
    if (waiting) {
      // Leave the half-typed line behind on its own row.
      output.write('^C\n');
      settle(INTERRUPTED);
    } else onInterrupt();
  });
  return {
    ask(prompt) {
      if (closed) return Promise.resolve(null);
      return new Promise<Answer>((resolve) => {
        waiting = resolve;
        rl.setPrompt(prompt);
        rl.prompt();
      });
    },
    suspend(work) {
      rl.pause();
      const raw = input.isTTY === true && typeof input.setRawMode === 'function';
      if (raw) input.setRawMode?.(false);
      try {
        return work();
      } finally {
        if (raw) input.setRawMode?.(true);
        rl.resume();
      }
    },
    close() {
      closed = true;
      rl.close();
    },
  };
}
