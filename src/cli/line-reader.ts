import readline from 'node:readline';

/** What `ask` answers when the person pressed Ctrl+C instead of Enter. */
export const INTERRUPTED = Symbol('interrupted');
export type Answer = string | null | typeof INTERRUPTED;
/** What `askUnless` answers when its signal aborted first (the question no longer stands: the call timed out). */
export const ABANDONED = Symbol('abandoned');

/**
 * The terminal's input, a line at a time. `ask` answers the line typed, `null` at end of input (Ctrl+D), or
 * `INTERRUPTED` for Ctrl+C; a Ctrl+C while nothing is asked (a reply streams) goes to `onInterrupt`.
 */
export interface LineReader {
  ask(prompt: string): Promise<Answer>;
  /** Like `ask`, but gives up with ABANDONED when `signal` aborts before a line is typed. */
  askUnless(prompt: string, signal: AbortSignal): Promise<Answer | typeof ABANDONED>;
  /** Hands the terminal to another program ($EDITOR) and takes it back afterwards. */
  suspend<T>(work: () => T): T;
  close(): void;
}

export function createLineReader(
  input: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown },
  output: NodeJS.WritableStream,
  onInterrupt: () => void,
): LineReader {
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
    askUnless(prompt, signal) {
      if (signal.aborted) return Promise.resolve(ABANDONED);
      const answer = this.ask(prompt);
      return new Promise((resolve) => {
        const onAbort = (): void => {
          if (waiting === null) return;
          waiting = null;
          // A half-typed answer no longer answers anything: cleared (Ctrl+E, Ctrl+U), and what is said next starts on a fresh row.
          rl.write(null, { ctrl: true, name: 'e' });
          rl.write(null, { ctrl: true, name: 'u' });
          output.write('\n');
          resolve(ABANDONED);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        void answer.then((value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        });
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
