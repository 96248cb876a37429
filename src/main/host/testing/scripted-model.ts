/**
 * The scripted model of the trust invariant test, answering the fake LLM server's generation requests from the
 * conversation it is sent (so a stop or a restart never puts it out of step): the person's last message names a
 * plan, and the number of assistant turns since that message says which round of the plan comes next. Each call
 * gets a fresh nonce, so every call the model makes has arguments no other call has, except a routine call (the same
 * call a person answers again and again, ROUTINE_NONCE). A server's sampling request is answered with its own nonce.
 */
import type { FakeTurn, RecordedRequest } from '../../llm/testing/fake-llm-server';
import { providerToolName } from '../../llm/tool-names';
import {
  COMMANDS,
  PATHS,
  ROUTINE_NONCE,
  samplingAnswer,
  samplingNonce,
  TASK_TOOL_INDEX,
  TOOLS,
  type CallArguments,
} from './invariant-catalogue';

/** One call of a plan: which tool, and which value of its field (an index into PATHS or COMMANDS). */
export interface PlannedCall {
  readonly tool: number;
  readonly value: number;
  /** The same call again (ROUTINE_NONCE instead of a fresh nonce): what a person answers the same way every time. */
  readonly routine?: boolean;
  /** A call of a step planned apart (a kept task, `k1`, `k2`…): it leaves the other calls' nonces as they were. */
  readonly apart?: boolean;
}
/** Rounds of tool calls; after the last round the model answers with text. */
export type Plan = readonly (readonly PlannedCall[])[];

export interface ScriptedModel {
  /** The user message that starts `plan`. */
  messageFor(plan: Plan): string;
  /** Which name the model calls a catalogue server's tools by (a renamed server is called by its new name). */
  callServersAs(nameOf: (catalogueName: string) => string): void;
  respond(request: RecordedRequest): FakeTurn;
  /**
   * Runs `hook` once, as the model answers with the tool calls of `plan`: after the client offered it its tools and
   * before the client reads the calls (what changes in between, a reply that streams meanwhile meets).
   */
  beforeCalls(plan: string, hook: () => void): void;
}

export function valueFor(field: 'path' | 'command', index: number): string {
  const values: readonly string[] = field === 'path' ? PATHS : COMMANDS;
  return values[index % values.length] as string;
}

export function argumentsFor(
  call: PlannedCall,
  nonce: string,
): { serverName: string; toolName: string; args: CallArguments } {
  const tool = TOOLS[call.tool % TOOLS.length] as (typeof TOOLS)[number];
  const args: CallArguments = { [tool.field]: valueFor(tool.field, call.value), nonce };
  if (tool.name === 'write_file') args['content'] = 'hello';
  return { serverName: tool.serverName, toolName: tool.name, args };
}

interface WireMessage {
  role?: string;
  content?: unknown;
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part) => (part as { text?: string }).text ?? '').join('')
      : '';

/** The text of the last user message of a generation request (OpenAI's wire format). */
export function lastUserText(request: RecordedRequest): string {
  const messages = ((request.body as { messages?: WireMessage[] } | undefined)?.messages ?? []) as WireMessage[];
  return textOf(messages.findLast((message) => message.role === 'user')?.content);
}

export function createScriptedModel(): ScriptedModel {
  const plans = new Map<number, Plan>();
  let calls = 0;
  let taskCalls = 0;
  let apartCalls = 0;
  let nameOf = (catalogueName: string): string => catalogueName;
  const hooks = new Map<number, () => void>();
  return {
    beforeCalls(plan, hook) {
      hooks.set(Number(/plan (\d+)/.exec(plan)?.[1]), hook);
    },
    callServersAs(next) {
      nameOf = next;
    },
    messageFor(plan) {
      const id = plans.size + 1;
      plans.set(id, plan);
      return `plan ${id}`;
    },
    respond(request) {
      const messages = ((request.body as { messages?: WireMessage[] } | undefined)?.messages ?? []) as WireMessage[];
      const lastUser = messages.findLastIndex((message) => message.role === 'user');
      // A server's sampling request (invariant-catalogue.ts): answered with its nonce, so the answer can be traced.
      const nonce = samplingNonce(textOf(messages[lastUser]?.content));
      if (nonce !== null) return { kind: 'reply', text: [samplingAnswer(nonce)] };
      const id = Number(/plan (\d+)/.exec(textOf(messages[lastUser]?.content))?.[1]);
      const round = messages.slice(lastUser + 1).filter((message) => message.role === 'assistant').length;
      const planned = plans.get(id)?.[round];
      if (!planned || planned.length === 0) return { kind: 'reply', text: ['Done.'] };
      const hook = hooks.get(id);
      hooks.delete(id);
      hook?.();
      return {
        kind: 'reply',
        toolCalls: planned.map((call) => {
          // Calls of the task tool count apart (`t1`, `t2`…): their plan was added after the others', and the nonces
          // of the other calls say which ask for a page or carry a secret, so they stay as they were for a seed.
          const task = call.tool === TASK_TOOL_INDEX;
          const id = task ? `t${(taskCalls += 1)}` : call.apart ? `k${(apartCalls += 1)}` : `${(calls += 1)}`;
          const { serverName, toolName, args } = argumentsFor(
            call,
            call.routine === true ? ROUTINE_NONCE : task || call.apart ? id : `n${id}`,
          );
          return {
            id: `call_${id}`,
            name: providerToolName(nameOf(serverName), toolName),
            argumentChunks: [JSON.stringify(args)],
          };
        }),
      };
    },
  };
}
