/** A CLI session in a real terminal: tmux runs it, send-keys types, capture-pane reads the screen. */
import { spawnSync } from 'node:child_process';
import { CLI_ENTRY, cliEnv, HANG_LIMIT_MS, ROOT } from './cli-process';

export interface TmuxSession {
  /** Types text (literally) and presses Enter. */
  type(text: string): void;
  /** Presses keys by tmux name: 'Enter', 'C-c', 'C-d'. */
  press(...keys: string[]): void;
  /** The whole screen and scrollback, wrapped lines joined; with colour codes when `escapes`. */
  screen(escapes?: boolean): string;
  /** Waits until the screen matches (a text occurs `times` times); fails with the screen after HANG_LIMIT_MS. */
  waitFor(pattern: string | RegExp, times?: number): Promise<string>;
  /** Ends the CLI (Ctrl+C twice, so it stops its MCP servers) if it still runs, then the tmux server. */
  close(): Promise<void>;
}

let sessions = 0;

/** Starts `workbench ARGS` in a new tmux session of its own tmux server; `EXITED <code>` is printed when it ends. */
export function startInTmux(
  args: readonly string[],
  home: string,
  env: Record<string, string | undefined> = {},
): TmuxSession {
  const socket = `aiwb-cli-test-${process.pid}-${++sessions}`;
  const name = 'cli';
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  const command = `${[process.execPath, CLI_ENTRY, ...args].map(quote).join(' ')}; echo "EXITED $?"; sleep 3600`;
  const tmux = (...tmuxArgs: string[]): string => {
    const result = spawnSync('tmux', ['-L', socket, ...tmuxArgs], {
      cwd: ROOT,
      env: { ...cliEnv(home, env), TERM: 'xterm-256color' },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`tmux ${tmuxArgs.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  };
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', name, '-x', '160', '-y', '50', command);
  tmux('set-option', '-t', name, 'history-limit', '5000');
  const session: TmuxSession = {
    type(text) {
      tmux('send-keys', '-t', name, '-l', text);
      tmux('send-keys', '-t', name, 'Enter');
    },
    press(...keys) {
      tmux('send-keys', '-t', name, ...keys);
    },
    screen: (escapes = false) =>
      tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-5000', '-t', name),
    async waitFor(pattern, times = 1) {
      const deadline = Date.now() + HANG_LIMIT_MS;
      for (;;) {
        const screen = session.screen();
        const count =
          typeof pattern === 'string'
            ? screen.split(pattern).length - 1
            : (screen.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? []).length;
        if (count >= times) return screen;
        if (Date.now() > deadline)
          throw new Error(
            `The terminal did not show ${String(pattern)}${times > 1 ? ` ${times} times` : ''} within ${HANG_LIMIT_MS} ms. It shows:\n${screen}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      try {
        if (!session.screen().includes('EXITED')) {
          session.press('C-c');
          session.press('C-c');
          const deadline = Date.now() + 10_000;
          while (!session.screen().includes('EXITED') && Date.now() < deadline)
            await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
      }
    },
  };
  return session;
}
