import { StringDecoder } from 'node:string_decoder';
import type { McpLogLine } from '../../shared/mcp';

export const LOG_RING_CAPACITY = 1000;
/** Longer lines are cut: one runaway line must not hold megabytes in every server's buffer. */
export const LOG_LINE_MAX_LENGTH = 4000;

/** The last LOG_RING_CAPACITY lines a server wrote to stderr, with what the host noticed in between. */
export interface LogRing {
  push(source: McpLogLine['source'], text: string, detail?: Pick<McpLogLine, 'level' | 'logger'>): void;
  /** The newest `limit` lines, oldest first. */
  lines(limit?: number): McpLogLine[];
  /** How many lines fell out of the buffer since it was made. */
  readonly dropped: number;
  /** Replaces these values (a server's secrets) with "•••" in every line pushed from now on. */
  redact(values: readonly string[]): void;
}

export function createLogRing(capacity = LOG_RING_CAPACITY, now: () => number = Date.now): LogRing {
  const buffer: McpLogLine[] = new Array<McpLogLine>(capacity);
  let next = 0;
  let size = 0;
  let dropped = 0;
  // Short values would turn ordinary words into "•••"; secrets are longer than this.
  let secrets: string[] = [];
  return {
    push(source, text, detail) {
      let line =
        text.length > LOG_LINE_MAX_LENGTH
          ? `${text.slice(0, LOG_LINE_MAX_LENGTH)}… (${text.length - LOG_LINE_MAX_LENGTH} more characters)`
          : text;
      for (const secret of secrets) line = line.replaceAll(secret, '•••');
      buffer[next] = {
        time: now(),
        source,
        text: line,
        ...(detail?.level ? { level: detail.level } : {}),
        ...(detail?.logger ? { logger: detail.logger } : {}),
      };
      next = (next + 1) % capacity;
      if (size < capacity) size++;
      else dropped++;
    },
    lines(limit = capacity) {
      const count = Math.min(limit, size);
      const result: McpLogLine[] = [];
      for (let index = size - count; index < size; index++)
        result.push(buffer[(next - size + index + capacity) % capacity] as McpLogLine);
      return result;
    },
    get dropped() {
      return dropped;
    },
    redact(values) {
      secrets = [...new Set(values.filter((value) => value.length >= 4))].sort((a, b) => b.length - a.length);
    },
  };
}

/** Splits a byte stream into lines (LF or CRLF); a line longer than `maxLength` is handed on in pieces. */
export function createLineSplitter(
  onLine: (line: string) => void,
  maxLength = LOG_LINE_MAX_LENGTH,
): { write(chunk: Buffer | string): void; end(): void } {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  return {
    write(chunk) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let index: number;
      while ((index = pending.indexOf('\n')) !== -1) {
        onLine(pending.slice(0, index).replace(/\r$/, ''));
        pending = pending.slice(index + 1);
      }
      while (pending.length > maxLength) {
        onLine(pending.slice(0, maxLength));
        pending = pending.slice(maxLength);
      }
    },
    end() {
      pending += decoder.end();
      if (pending) onLine(pending);
      pending = '';
    },
  };
}

/** A size as people read it: "812 bytes", "3.5 KiB", "4 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
