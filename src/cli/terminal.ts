import { inspect } from 'node:util';
import pc from 'picocolors';

/** Where a command writes, and whether it may use colours (a TTY, and never with NO_COLOR). */
export interface Terminal {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  readonly colors: Colors;
  /** Both stdin and stdout are terminals: a person can be asked. */
  readonly interactive: boolean;
  line(text?: string): void;
  /** Progress and notes: stderr, so stdout stays what a script reads. */
  note(text: string): void;
  json(value: unknown): void;
}

export type Colors = Pick<typeof pc, 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'magenta'>;

/** NO_COLOR (any non-empty value, https://no-color.org) wins over everything; otherwise colours only on a TTY. */
export function colorsEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function createTerminal(): Terminal {
  const colors = pc.createColors(colorsEnabled(process.stdout));
  return {
    out: process.stdout,
    err: process.stderr,
    colors,
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
    line: (text = '') => void process.stdout.write(`${text}\n`),
    note: (text) => void process.stderr.write(`${text}\n`),
    json: (value) => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}

/** Rows as aligned columns; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, visibleLength(cell))));
  return rows
    .map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - visibleLength(cell)))).join('  ').trimEnd())
    .join('\n');
}

// eslint-disable-next-line no-control-regex -- colour codes start with ESC
const ANSI = /\u001b\[[0-9;]*m/g;
/** Whether the text carries colour codes. */
export function hasColors(text: string): boolean {
  return text.includes('\u001b[');
}

export function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A value for a person: strings as they are, everything else as compact JSON. */
export function show(value: unknown): string {
  return typeof value === 'string' ? value : inspect(value, { depth: 6, breakLength: 120 });
}
