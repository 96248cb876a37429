import { inspect } from 'node:util';
import { escapeJsonForTerminal, sanitizeForTerminal } from './terminal-text';

/** One of the terminal's output streams, through the sink: `write` shows text, never lets it drive the terminal. */
export interface TerminalStream {
  /** Writes the text as `renderForTerminal` makes it: the CLI's colours, nobody else's escape sequences. */
  write(text: string): void;
  readonly isTTY: boolean;
  /** The stream itself, for the CLI's own control sequences (rewriting a progress line) and readline. */
  readonly stream: NodeJS.WritableStream;
}

/** Where a command writes, and whether it may use colours (a TTY, and never with NO_COLOR). */
export interface Terminal {
  readonly out: TerminalStream;
  readonly err: TerminalStream;
  readonly colors: Colors;
  /** Both stdin and stdout are terminals: a person can be asked. */
  readonly interactive: boolean;
  line(text?: string): void;
  /** Progress and notes: stderr, so stdout stays what a script reads. */
  note(text: string): void;
  json(value: unknown): void;
}

export type Colors = Record<'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'magenta', (text: string) => string>;

/** NO_COLOR (any non-empty value, https://no-color.org) wins over everything; otherwise colours only on a TTY. */
export function colorsEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/**
 * The CLI's own colours are not escape codes while a line is built: they are a mark made of this process's
 * random nonce (in private-use characters) and the SGR number. At the sink, `renderForTerminal` first removes
 * every escape sequence and control character (`sanitizeForTerminal`: whatever a model or a server put in the
 * text), then turns the marks into SGR codes. Text from outside cannot forge a mark: it does not know the nonce.
 */
interface Nonce {
  text: string;
  /** A mark, with its SGR number captured. */
  mark: RegExp;
  anyMark: RegExp;
}
let nonce: Nonce | undefined;
/** Made on first use: node:crypto loads then, ~3 ms that `workbench --help` never needs (docs/dev/benchmarks.md). */
function marks(): Nonce {
  if (nonce) return nonce;
  const text = `\ue000${process.getBuiltinModule('node:crypto').randomBytes(8).toString('hex')}\ue001`;
  nonce = { text, mark: new RegExp(`${text}(\\d+)m`, 'g'), anyMark: new RegExp(`${text}\\d+m`, 'g') };
  return nonce;
}
const mark = (sgr: number): string => `${marks().text}${sgr}m`;
const STYLES: Record<keyof Colors, readonly [open: number, close: number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  magenta: [35, 39],
};

/** The CLI's colours (identity functions when `enabled` is false); nested styles reopen after an inner close, as picocolors does. */
export function createColors(enabled: boolean): Colors {
  const style = ([open, close]: readonly [number, number]): ((text: string) => string) => {
    if (!enabled) return (text) => text;
    const opening = mark(open);
    const closing = mark(close);
    return (text) => opening + text.replaceAll(closing, closing + opening) + closing;
  };
  return Object.fromEntries(Object.entries(STYLES).map(([name, codes]) => [name, style(codes)])) as Colors;
}

/** What reaches the terminal for a text the CLI built: nobody's escape sequences, then the CLI's colours as SGR. */
export function renderForTerminal(text: string): string {
  return sanitizeForTerminal(text).replace(marks().mark, '\u001b[$1m');
}

function terminalStream(stream: NodeJS.WriteStream): TerminalStream {
  return { write: (text) => void stream.write(renderForTerminal(text)), isTTY: stream.isTTY === true, stream };
}

export function createTerminal(): Terminal {
  const colors = createColors(colorsEnabled(process.stdout));
  const out = terminalStream(process.stdout);
  const err = terminalStream(process.stderr);
  return {
    out,
    err,
    colors,
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    line: (text = '') => out.write(`${text}\n`),
    note: (text) => err.write(`${text}\n`),
    json: (value) => void process.stdout.write(`${escapeJsonForTerminal(JSON.stringify(value, null, 2))}\n`),
  };
}

/** Rows as aligned columns; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, visibleLength(cell))));
  return rows
    .map((row) =>
      row
        .map((cell, index) =>
          index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - visibleLength(cell)),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Whether the text carries colour codes. */
export function hasColors(text: string): boolean {
  return text.includes('\u001b[');
}

export function visibleLength(text: string): number {
  return sanitizeForTerminal(text).replace(marks().anyMark, '').length;
}

export function formatTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A value for a person: strings as they are, everything else as compact JSON. */
export function show(value: unknown): string {
  return typeof value === 'string' ? value : inspect(value, { depth: 6, breakLength: 120 });
}
