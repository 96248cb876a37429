import type { WorkbenchErrorData } from './errors';

/**
 * What the page needs of errors, without zod (errors.ts holds the schemas): the codes, the shape check and the
 * words. Kept apart so the page's first screen loads no schema (docs/dev/benchmarks.md, app-start).
 */

/** Every error that crosses a process boundary has one of these codes. */
export const ERROR_CODES = [
  'invalid_input',
  'unknown_method',
  'not_found',
  'already_exists',
  'unauthorized',
  'unavailable',
  'internal',
  // A language model provider failed; the message says what to do, `details` carries the provider's own words.
  'llm_bad_key',
  'llm_rate_limited',
  'llm_context_too_long',
  'llm_model_not_found',
  'llm_server_error',
  'llm_unreachable',
  'llm_stream_dropped',
  'llm_request_rejected',
  /** The name or thing already exists (an MCP server name…). */
  'conflict',
  /** The operation did not finish in time (an MCP tool call, a server's initialize). */
  'timeout',
  /** The caller cancelled the operation. */
  'cancelled',
  /** The setting is locked by the organisation's policy (docs/user/organisation-policy.md): "Set by your organisation". */
  'locked',
  /** Refused before anything ran: a rule, a setting or the person denied it, or no one may allow it (an MCP Apps view's request). */
  'refused',
] as const;

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Shape check instead of `instanceof`: the renderer receives plain objects from IPC and WebSocket alike. The same
 * test as `WorkbenchErrorDataSchema` (error-data.test.ts holds them to it).
 */
export function isWorkbenchErrorData(value: unknown): value is WorkbenchErrorData {
  if (typeof value !== 'object' || value === null) return false;
  const { code, message } = value as Record<string, unknown>;
  return typeof code === 'string' && CODES.has(code) && typeof message === 'string';
}

/** What a failed call says, in words: contract calls reject with plain `{ code, message }` data, other code with an Error. */
export function errorText(error: unknown): string {
  if (isWorkbenchErrorData(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}
