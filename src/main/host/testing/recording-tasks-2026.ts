/**
 * The tasks of the trust invariant's 2026-07-28 recording server (Shell, recording-servers-2026.ts; docs/dev/testing.md,
 * "The trust invariant"; docs/dev/protocol-2026.md#tasks-on-2026-07-28): its `run` of a command in
 * `MODERN_TASK_COMMANDS` runs only as a task of the tasks extension. A call that does not declare the extension is
 * refused (`-32021`) before anything runs, nothing is recorded, and `refusals` counts it (the host declares the
 * extension to a server that offered it, so none should come); a call that declares it is recorded as a run and
 * answered with a task, already completed when created, so that the client follows it with one `tasks/get` and no
 * timer (the invariant's clock stands still): that `tasks/get` is recorded as a further leg of the call, checked against
 * the deny rules in force when it arrives. A step may hold Shell's answer to the call (`modernTaskControl.holdCalls`:
 * the call arrived and ran, its task not yet known to the client) to change the rules before the client's first leg,
 * or keep the tasks it creates running (`modernTaskControl.holdRunning`: `working`, polled every few milliseconds on
 * the real clock, each `tasks/get` a leg) until `finishRunning`, so that a rule can come into force while a task runs;
 * a task kept (`keep`) stays `working` across `finishRunning` until `releaseKept`, and Shell holds its answer to each
 * of its `tasks/get` until `letLookGo`.
 */
import { MissingRequiredClientCapabilityError, ProtocolError, type Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CallArguments } from './invariant-catalogue';
import type { ServerListeners } from './recording-servers';

/** The commands Shell's `run` runs only as a task. */
export const MODERN_TASK_COMMANDS: readonly string[] = ['shutdown'];

const TASKS = 'io.modelcontextprotocol/tasks';

/** What the harness sees of Shell's tasks, and how a step holds its answer to a call. */
export const modernTaskControl = {
  holdCalls: false,
  /** Answers to calls waiting for `release`. */
  held: 0,
  /** Answers ever held, tasks ever created and calls refused, for a test to see what a sequence did. */
  everHeld: 0,
  created: 0,
  refusals: 0,
  waiting: [] as (() => void)[],
  release(): void {
    const waiting = this.waiting.splice(0);
    this.held = 0;
    for (const go of waiting) go();
  },
  /** While true, a task created stays `working` until `finishRunning`. */
  holdRunning: false,
  /** Every `tasks/get` that reached Shell, and every `tasks/cancel`. */
  looks: 0,
  cancels: 0,
  /** The held tasks still running complete (their next `tasks/get` says so), but the kept ones; holding ends. */
  finishRunning(): void {
    this.holdRunning = false;
    this.answerLooks();
    for (const task of tasks.values()) if (task.status === 'working' && !task.kept) task.status = 'completed';
  },
  /** Keeps the task created last running across `finishRunning`; its id. */
  keepLast(): string | undefined {
    const [taskId, task] = [...tasks.entries()].at(-1) ?? [];
    if (task) task.kept = true;
    return taskId;
  },
  /** A kept task completes at its next `tasks/get` (the one held now goes). */
  releaseKept(taskId: string): void {
    const task = tasks.get(taskId);
    if (!task) return;
    task.kept = false;
    this.letLookGo(taskId);
  },
  /** Shell answers the `tasks/get` of a kept task that it holds (it holds each until let go). */
  letLookGo(taskId: string): void {
    const task = tasks.get(taskId);
    const go = task?.heldLook;
    if (task) delete task.heldLook;
    go?.();
  },
  /** A task's status, its arguments and slot, and the `tasks/get` requests that reached Shell for it. */
  task(taskId: string): Readonly<ShellTask> | undefined {
    return tasks.get(taskId);
  },
  /**
   * While true, Shell holds its answer to the next `tasks/get` (recorded as a leg on arrival) until `answerLook`: the
   * client sends no other leg meanwhile, so a rule added then is in force before its next leg, with none in flight.
   */
  holdLooks: false,
  heldLooks: [] as (() => void)[],
  answerLooks(): void {
    this.holdLooks = false;
    for (const go of this.heldLooks.splice(0)) go();
  },
  /** The status of the task created last. */
  lastStatus(): string | undefined {
    return [...tasks.values()].at(-1)?.status;
  },
};

interface ShellTask {
  slot: string;
  args: CallArguments;
  status: 'working' | 'completed' | 'cancelled';
  kept?: boolean;
  looks: number;
  /** The answer to a `tasks/get` of a kept task, held until `letLookGo`. */
  heldLook?: () => void;
}

const tasks = new Map<string, ShellTask>();
let nextTask = 1;

/** Whether the request declared the extension in its envelope (the SDK keys it by the `_meta` key it came from). */
function declared(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, { extensions?: Record<string, unknown> }> | undefined)?.[
    'io.modelcontextprotocol/clientCapabilities'
  ];
  return Boolean(capabilities?.extensions?.[TASKS]);
}

/** Answers a `run` of a task command: refused without the extension, a task with it (its answer held, if asked). */
export async function runAsTask(
  serverName: string,
  slot: string,
  args: CallArguments,
  envelope: unknown,
  listeners: ServerListeners,
): Promise<Record<string, unknown>> {
  if (!declared(envelope)) {
    modernTaskControl.refusals += 1;
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      `"run" of "${String(args['command'])}" runs only as a task: declare the ${TASKS} extension.`,
    );
  }
  listeners.onCall(serverName, slot, 'run', structuredClone(args));
  const taskId = `shell-task-${nextTask++}`;
  const status = modernTaskControl.holdRunning ? 'working' : 'completed';
  tasks.set(taskId, { slot, args: structuredClone(args), status, looks: 0 });
  modernTaskControl.created += 1;
  if (modernTaskControl.holdCalls) {
    modernTaskControl.held += 1;
    modernTaskControl.everHeld += 1;
    await new Promise<void>((resolve) => modernTaskControl.waiting.push(resolve));
  }
  const now = new Date().toISOString();
  return { resultType: 'task', ...wire(taskId, status, now, false) };
}

/** The words of a task's result: its own, so that a check can tell whether it reached the model. */
export const shellTaskResult = (taskId: string): string => `ran run (task ${taskId})`;

/** A task on the wire: one still working is polled again in a few milliseconds; its result comes with `tasks/get`. */
const wire = (taskId: string, status: string, now: string, withResult = true): Record<string, unknown> => ({
  taskId,
  status,
  createdAt: now,
  lastUpdatedAt: now,
  ttlMs: null,
  ...(status === 'working' ? { pollIntervalMs: 5 } : {}),
  ...(status === 'completed' && withResult
    ? { result: { content: [{ type: 'text', text: shellTaskResult(taskId) }] } }
    : {}),
});

/** `tasks/get` and `tasks/cancel` of Shell's tasks, on a server of the harness. */
export function serveTasks(server: Server, serverName: string, listeners: ServerListeners): void {
  const byId = { params: z.object({ taskId: z.string() }) };
  server.setRequestHandler('tasks/get', byId, async ({ taskId }) => {
    const task = tasks.get(taskId);
    if (!task) throw new ProtocolError(-32602, `no task ${taskId}`);
    modernTaskControl.looks += 1;
    task.looks += 1;
    listeners.onLeg?.(serverName, task.slot, 'run', structuredClone(task.args));
    // A kept task's look is answered once let go (no leg of it on its way while the rules change); one let go
    // completes when it is next looked at.
    if (task.kept) await new Promise<void>((resolve) => (task.heldLook = resolve));
    if (task.kept === false && task.status === 'working') task.status = 'completed';
    if (modernTaskControl.holdLooks) await new Promise<void>((resolve) => modernTaskControl.heldLooks.push(resolve));
    return wire(taskId, task.status, new Date().toISOString());
  });
  server.setRequestHandler('tasks/cancel', byId, async ({ taskId }) => {
    modernTaskControl.cancels += 1;
    const task = tasks.get(taskId);
    if (task?.status === 'working') task.status = 'cancelled';
    return {};
  });
}
