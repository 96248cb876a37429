import { z } from 'zod';
import {
  MODEL_RESULT_LIMIT_BYTES,
  McpContentSchema,
  type McpContent,
  type McpToolResult,
} from '../../shared/mcp-result';
import { formatBytes } from './log-ring';

/**
 * The shape we ask the SDK to accept for a `tools/call` answer: loose on purpose. A content part
 * of a kind this version does not know must not throw the whole result away; each part is
 * checked on its own below.
 */
export const LenientCallToolResultSchema = z.looseObject({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  /** Protocol 2024-10-07 answered with `toolResult` instead of `content`. */
  toolResult: z.unknown().optional(),
});
export type LenientCallToolResult = z.infer<typeof LenientCallToolResultSchema>;

/**
 * What the SDK is asked to check of a `tools/call` answer: nothing. `asCallToolResult` checks it after, by hand, as
 * `LenientCallToolResultSchema` would: the schema's walk costs more per call than its few checks
 * (mcp-call-overhead, docs/dev/benchmarks.md).
 */
export const UncheckedResultSchema = z.unknown();

/** A `tools/call` answer as a result; throws the schema's `ZodError`, which says what is wrong, when it is not one. */
export function asCallToolResult(answer: unknown): LenientCallToolResult {
  if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) {
    const { content, structuredContent, isError } = answer as Record<string, unknown>;
    if (
      (content === undefined || Array.isArray(content)) &&
      (structuredContent === undefined || isPlainObject(structuredContent)) &&
      (isError === undefined || typeof isError === 'boolean')
    )
      return answer as LenientCallToolResult;
  }
  return LenientCallToolResultSchema.parse(answer);
}

function isPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export interface NormaliseOptions {
  /** Bytes of UTF-8 text the model is sent at most. */
  modelLimitBytes?: number;
  /** Set when the structured result broke the tool's output schema: the result becomes an error saying so. */
  outputSchemaProblem?: string | undefined;
}

/**
 * One result type for the tool loop and the UI, from whatever the server answered. One pass over the parts, without a
 * function made per call: it runs on every call (mcp-call-overhead, docs/dev/benchmarks.md).
 */
export function normaliseToolResult(raw: LenientCallToolResult, options: NormaliseOptions = {}): McpToolResult {
  const content: McpContent[] = [];
  const parts: string[] = [];
  let sizeBytes = 0;
  for (const item of raw.content ?? []) {
    const part = toContent(item);
    content.push(part);
    parts.push(describeForModel(part));
    sizeBytes += partBytes(part);
  }
  if (content.length === 0 && raw.toolResult !== undefined) {
    const part: McpContent = { type: 'text', text: JSON.stringify(raw.toolResult) ?? '' };
    content.push(part);
    parts.push(part.text);
    sizeBytes += partBytes(part);
  }
  const { structuredContent } = raw;
  if (structuredContent) {
    if (parts.length === 0) parts.push(JSON.stringify(structuredContent));
    sizeBytes += jsonBytes(structuredContent);
  }
  let isError = raw.isError === true;
  if (options.outputSchemaProblem) {
    isError = true;
    parts.unshift(`The tool's structured result does not match its output schema: ${options.outputSchemaProblem}`);
  }
  const forModel = cutForModel(
    parts.length === 1 ? (parts[0] as string) : parts.join('\n\n'),
    options.modelLimitBytes ?? MODEL_RESULT_LIMIT_BYTES,
  );
  return structuredContent
    ? { isError, content, structuredContent, sizeBytes, forModel }
    : { isError, content, sizeBytes, forModel };
}

/**
 * A call the server would not run before a page was opened (MCP -32042), whose page the person declined or cancelled:
 * our words first, then the server's own (docs/user/server-requests.md, "Elicitation").
 */
export function pageDeclinedResult(
  serverName: string,
  page: { url: string; action: 'decline' | 'cancel' },
  code: number,
  message: string,
): McpToolResult {
  const text =
    `Not run: ${serverName} needs a page opened first (${page.url}), and the person ` +
    `${page.action === 'decline' ? 'declined' : 'cancelled'} it. The server said: ${message}`;
  return {
    isError: true,
    content: [{ type: 'text', text }],
    protocolError: { code, message },
    pageDeclined: page,
    sizeBytes: Buffer.byteLength(text),
    forModel: { text, truncated: false },
  };
}

/** A JSON-RPC error the server answered instead of a result, as a failed result the model can read. */
export function protocolErrorResult(code: number, message: string): McpToolResult {
  const text = `The tool failed: ${message} (JSON-RPC error ${code})`;
  return {
    isError: true,
    content: [{ type: 'text', text }],
    protocolError: { code, message },
    sizeBytes: Buffer.byteLength(text),
    forModel: { text, truncated: false },
  };
}

function toContent(part: unknown): McpContent {
  // Most parts are plain text: take them without a schema walk (a call's overhead budget is tens of µs).
  const plain = part as { type?: unknown; text?: unknown; annotations?: unknown } | null;
  if (plain?.type === 'text' && typeof plain.text === 'string' && plain.annotations === undefined)
    return { type: 'text', text: plain.text };
  // MCP nests an embedded resource's fields in `resource`; the normalised part carries them flat.
  const embedded =
    (part as { type?: unknown; resource?: unknown } | null)?.type === 'resource'
      ? (part as { resource?: unknown }).resource
      : undefined;
  const candidate =
    typeof embedded === 'object' && embedded !== null
      ? { ...embedded, type: 'resource', annotations: (part as { annotations?: unknown }).annotations }
      : (part as { type?: unknown } | null)?.type === 'resource'
        ? null
        : part;
  const parsed = McpContentSchema.safeParse(candidate);
  if (parsed.success && parsed.data.type !== 'unknown') return parsed.data;
  return { type: 'unknown', original: part };
}

function describeForModel(part: McpContent): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type}: ${part.mimeType}, ${formatBytes(base64Bytes(part.data))}]`;
    case 'resource_link':
      return `[resource link: ${part.title ?? part.name} <${part.uri}>${part.mimeType ? ` (${part.mimeType})` : ''}${part.description ? ` — ${part.description}` : ''}]`;
    case 'resource':
      if (part.text !== undefined)
        return `[resource <${part.uri}>${part.mimeType ? ` (${part.mimeType})` : ''}]\n${part.text}`;
      return `[resource <${part.uri}>: ${part.mimeType ?? 'binary'}, ${formatBytes(base64Bytes(part.blob ?? ''))}]`;
    case 'unknown':
      return `[content the app does not know: ${(JSON.stringify(part.original) ?? '').slice(0, 500)}]`;
  }
}

/** Cuts at a character boundary below `limit` bytes of UTF-8 and says so, with the full size. */
function cutForModel(text: string, limit: number): McpToolResult['forModel'] {
  // Quick path: a UTF-16 string of n units is at most 3n bytes of UTF-8.
  if (text.length * 3 <= limit) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return { text, truncated: false };
  const kept = bytes
    .subarray(0, limit)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const note = `\n\n[The result was cut: this is the first ${formatBytes(Buffer.byteLength(kept))} of ${formatBytes(bytes.length)}. The whole result is kept with the chat.]`;
  return { text: kept + note, truncated: true };
}

/** The size of what a base64 text decodes to, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** A part's size as JSON, without serialising megabytes of text just to measure them. */
function partBytes(part: McpContent): number {
  return part.type === 'text' && part.annotations === undefined ? Buffer.byteLength(part.text) + 24 : jsonBytes(part);
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}
