import { z } from 'zod';
import { EnvelopeSchema } from './errors';

/** Frames of the browser-mode WebSocket protocol. The subprotocol names its version. */
export const WIRE_PROTOCOL = 'aiwb.v1';
/** The per-launch token travels as a second subprotocol, `aiwb.token.<token>`, never in a URL the server logs. */
export const WIRE_TOKEN_PREFIX = 'aiwb.token.';

export const CallFrameSchema = z.object({
  type: z.literal('call'),
  id: z.number().int().nonnegative(),
  method: z.string(),
  /** Absent for methods without input (JSON drops an undefined member). */
  input: z.unknown().optional(),
});
export type CallFrame = z.infer<typeof CallFrameSchema>;

export const ResultFrameSchema = z.object({
  type: z.literal('result'),
  /** null when the call frame itself could not be read. */
  id: z.number().int().nonnegative().nullable(),
  result: EnvelopeSchema,
});
export type ResultFrame = z.infer<typeof ResultFrameSchema>;

export const EventFrameSchema = z.object({
  type: z.literal('event'),
  event: z.string(),
  payload: z.unknown(),
});
export type EventFrame = z.infer<typeof EventFrameSchema>;

export const ServerFrameSchema = z.discriminatedUnion('type', [ResultFrameSchema, EventFrameSchema]);
export type ServerFrame = z.infer<typeof ServerFrameSchema>;
