import { z } from 'zod';
import { AppInfoSchema } from './app';
import {
  AuditExportInputSchema,
  AuditExportResultSchema,
  AuditPageSchema,
  AuditProgressSchema,
  AuditQueryInputSchema,
  AuditVerifyInputSchema,
  AuditVerifyResultSchema,
} from './audit';
import {
  ChatChangeSchema,
  ChatCreateInputSchema,
  ChatDeleteOutputSchema,
  ChatListOutputSchema,
  ChatRefInputSchema,
  ChatRenameInputSchema,
  ChatSchema,
} from './chat';

/** A method takes no input: callers may omit it or pass `{}`. */
const NoInputSchema = z.strictObject({}).optional();

interface MethodSpec {
  readonly input: z.ZodType;
  readonly output: z.ZodType;
}
interface EventSpec {
  readonly payload: z.ZodType;
}

/**
 * Every request the renderer (or any other front end) can make of the main process.
 * Names are `namespace.verb`; the namespace becomes an object on `window.workbench`.
 */
export const methods = {
  'app.info': { input: NoInputSchema, output: AppInfoSchema },
  'chat.create': { input: ChatCreateInputSchema, output: ChatSchema },
  'chat.list': { input: NoInputSchema, output: ChatListOutputSchema },
  'chat.get': { input: ChatRefInputSchema, output: ChatSchema },
  'chat.rename': { input: ChatRenameInputSchema, output: ChatSchema },
  'chat.delete': { input: ChatRefInputSchema, output: ChatDeleteOutputSchema },
  'audit.query': { input: AuditQueryInputSchema, output: AuditPageSchema },
  'audit.export': { input: AuditExportInputSchema, output: AuditExportResultSchema },
  'audit.verify': { input: AuditVerifyInputSchema, output: AuditVerifyResultSchema },
} as const satisfies Record<string, MethodSpec>;

/**
 * Every event the main process pushes. Names are `namespace.onDidX`, exposed as
 * `window.workbench.namespace.onDidX(listener)` returning an unsubscribe function.
 */
export const events = {
  'chat.onDidChange': { payload: ChatChangeSchema },
  'audit.onDidProgress': { payload: AuditProgressSchema },
} as const satisfies Record<string, EventSpec>;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
/** The input after validation (defaults applied, strings trimmed): what handlers receive. */
export type MethodParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]['payload']>;

export const methodNames = Object.keys(methods) as MethodName[];
export const eventNames = Object.keys(events) as EventName[];

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(methods, name);
}
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.hasOwn(events, name);
}
