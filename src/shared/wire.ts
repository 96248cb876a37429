import { isWorkbenchErrorData } from './error-data';
import type { Envelope } from './errors';

/**
 * Frames of the browser-mode WebSocket protocol (docs/user/browser-mode.md). Read by hand rather than with zod:
 * the page reads them from its first screen on, which loads no schema (docs/dev/benchmarks.md, app-start). What a
 * call carries is validated by the contract's schemas in the dispatcher, as over IPC.
 */

/** The subprotocol names its version. */
export const WIRE_PROTOCOL = 'aiwb.v1';
/** The per-launch token travels as a second subprotocol, `aiwb.token.<token>`, never in a URL the server logs. */
export const WIRE_TOKEN_PREFIX = 'aiwb.token.';

export interface CallFrame {
  type: 'call';
  id: number;
  method: string;
  /** Absent for methods without input (JSON drops an undefined member). */
  input?: unknown;
}

export interface ResultFrame {
  type: 'result';
  /** null when the call frame itself could not be read. */
  id: number | null;
  result: Envelope;
}

export interface EventFrame {
  type: 'event';
  event: string;
  payload: unknown;
}

export type ServerFrame = ResultFrame | EventFrame;

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isFrameId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** A call frame as the page sent it (parsed JSON), or undefined when it is not one. */
export function readCallFrame(value: unknown): CallFrame | undefined {
  if (!isFields(value) || value.type !== 'call' || !isFrameId(value.id) || typeof value.method !== 'string')
    return undefined;
  return {
    type: 'call',
    id: value.id,
    method: value.method,
    ...(value.input === undefined ? {} : { input: value.input }),
  };
}

/** A result or event frame as the server sent it (parsed JSON), or undefined when it is neither. */
export function readServerFrame(value: unknown): ServerFrame | undefined {
  if (!isFields(value)) return undefined;
  if (value.type === 'event') {
    return typeof value.event === 'string' ? { type: 'event', event: value.event, payload: value.payload } : undefined;
  }
  if (value.type !== 'result' || !(value.id === null || isFrameId(value.id))) return undefined;
  const result = readEnvelope(value.result);
  return result && { type: 'result', id: value.id, result };
}

function readEnvelope(value: unknown): Envelope | undefined {
  if (!isFields(value)) return undefined;
  if (value.ok === true) return { ok: true, value: value.value };
  if (value.ok !== false || !isWorkbenchErrorData(value.error)) return undefined;
  const { code, message, details } = value.error;
  return { ok: false, error: { code, message, ...(details === undefined ? {} : { details }) } };
}
