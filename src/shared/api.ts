import type { EventPayload, MethodInput, MethodOutput } from './contract';
import { eventNames, methodNames, type EventName, type MethodName } from './contract-names';
import { isWorkbenchErrorData } from './error-data';
import type { Envelope, WorkbenchErrorData } from './errors';

type Namespace<N extends string> = N extends `${infer Space}.${string}` ? Space : never;
type Member<N extends string> = N extends `${string}.${infer Rest}` ? Rest : never;

export type Unsubscribe = () => void;

type MethodFunction<M extends MethodName> =
  undefined extends MethodInput<M>
    ? (input?: MethodInput<M>) => Promise<MethodOutput<M>>
    : (input: MethodInput<M>) => Promise<MethodOutput<M>>;

type EventFunction<E extends EventName> = (listener: (payload: EventPayload<E>) => void) => Unsubscribe;

/**
 * `window.workbench`: one async function per contract method and one subscription per event,
 * grouped by namespace (`workbench.chat.create(...)`, `workbench.chat.onDidChange(...)`).
 * Functions reject with plain `WorkbenchErrorData`.
 */
export type WorkbenchApi = {
  readonly [S in Namespace<MethodName | EventName>]: {
    readonly [M in MethodName as Namespace<M> extends S ? Member<M> : never]: MethodFunction<M>;
  } & {
    readonly [E in EventName as Namespace<E> extends S ? Member<E> : never]: EventFunction<E>;
  };
};

/** What a host bridge provides; the preload and the browser-mode bridge each implement it. */
export interface WorkbenchTransport {
  /** Sends one call and resolves with its envelope; rejects only if the transport itself failed. */
  invoke(method: MethodName, input: unknown): Promise<Envelope>;
  subscribe(event: EventName, listener: (payload: unknown) => void): Unsubscribe;
}

function unwrap(envelope: Envelope): unknown {
  if (envelope.ok) return envelope.value;
  throw envelope.error;
}

function toErrorData(error: unknown): WorkbenchErrorData {
  if (isWorkbenchErrorData(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'unavailable', message };
}

/** Builds the nested API object from the contract's names; used by the preload and by the browser bridge. */
export function buildWorkbenchApi(transport: WorkbenchTransport): WorkbenchApi {
  const api: Record<string, Record<string, unknown>> = {};
  const spaceOf = (name: string): Record<string, unknown> => {
    const [space = ''] = name.split('.');
    api[space] ??= {};
    return api[space];
  };
  for (const method of methodNames) {
    spaceOf(method)[method.slice(method.indexOf('.') + 1)] = (input?: unknown) =>
      transport.invoke(method, input).then(unwrap, (error: unknown) => {
        throw toErrorData(error);
      });
  }
  for (const event of eventNames) {
    spaceOf(event)[event.slice(event.indexOf('.') + 1)] = (listener: (payload: unknown) => void) =>
      transport.subscribe(event, listener);
  }
  for (const space of Object.values(api)) Object.freeze(space);
  return Object.freeze(api) as unknown as WorkbenchApi;
}
