/**
 * The tasks of the trust invariant's recording servers (docs/dev/testing.md, "The trust invariant"): Files' (and
 * Other's) `write_report` must run as an MCP task (`execution.taskSupport: "required"`, 2025-11-25). The SDK's server
 * answers `tasks/get`, `tasks/result` and `tasks/cancel` from this store; the call itself reached the server (and was
 * recorded as a run) when `tools/call` created the task. A task moves on each time it is looked up — `step 1`, then
 * its result — with a poll interval of 0, so the client's polling runs on the timers due now; a task created while
 * the harness holds new tasks stays `working` (its status message still moving) until it is released or cancelled, so
 * that a step can cancel it or stop the reply while it runs, or keep it running across the steps after it (`kept`:
 * `release` leaves it held until `releaseKept`). Each `tasks/get` and `tasks/result` that reaches the server is a
 * further leg of the call (`legOf`, recorded by recording-servers.ts when the request arrives); the server holds its
 * answer to a kept task's look (`holdLook`) until `letLookGo`, so that no leg of it is on its way while a step
 * changes the rules (a leg that passed the door before a rule came could otherwise arrive after it).
 */
import type { CallArguments } from './invariant-catalogue';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { CallToolResult, Result, Task } from '@modelcontextprotocol/sdk/types.js';

/** The tool of the recording servers that runs as a task. */
export const TASK_TOOL = 'write_report';

/** What the harness sees of the servers' tasks and how it holds them. */
export interface RecordedTask {
  readonly serverName: string;
  /** The server's slot and the call's arguments, for its legs (invariant-harness.ts `recordLeg`). */
  readonly slot: string;
  readonly args: CallArguments;
  readonly nonce: string;
  readonly taskId: string;
  held: boolean;
  /** Kept running across the steps after its own: `release` leaves it held. */
  kept?: boolean;
  /** The `tasks/get` and `tasks/result` requests that reached the server for it. */
  looks: number;
  /** The task's status on the server, as it is now. */
  status: Task['status'];
}

/** Every task the recording servers created, and what the client asked about them. */
export interface TaskControl {
  readonly tasks: RecordedTask[];
  /** Tasks created while this is true are held (stay `working`) until `release`. */
  holdNew: boolean;
  /** Lets every held task end but the kept ones: its next look-up completes it. */
  release(): void;
  /** Lets a kept task end too (and its look held now go). */
  releaseKept(task: RecordedTask): void;
  /** Holds the server's answer to a look at a kept task until `letLookGo`. */
  holdLook(task: RecordedTask): Promise<void>;
  letLookGo(task: RecordedTask): void;
  /** Whether the server holds a look at this task now. */
  lookHeld(task: RecordedTask): boolean;
  /** How often the client asked each task method (`tasks/get`, `tasks/result`, `tasks/cancel`). */
  readonly asked: Record<string, number>;
}

/** The answers to looks at kept tasks that the server holds. */
const heldLooks = new Map<RecordedTask, () => void>();

export const taskControl: TaskControl = {
  tasks: [],
  holdNew: false,
  release() {
    for (const task of taskControl.tasks) if (!task.kept) task.held = false;
  },
  releaseKept(task) {
    task.kept = false;
    task.held = false;
    taskControl.letLookGo(task);
  },
  holdLook(task) {
    return new Promise<void>((resolve) => heldLooks.set(task, resolve));
  },
  letLookGo(task) {
    heldLooks.get(task)?.();
    heldLooks.delete(task);
  },
  lookHeld: (task) => heldLooks.has(task),
  asked: {},
};

/** A store whose tasks move on as they are looked up (see above). */
export class RecordingTaskStore extends InMemoryTaskStore {
  private readonly steps = new Map<string, number>();
  private readonly byId = new Map<string, RecordedTask>();

  /** A task of `write_report` created for this call, held when the harness holds new tasks. */
  async createFor(
    create: (params: { ttl: null; pollInterval: number }) => Promise<Task>,
    serverName: string,
    slot: string,
    args: CallArguments,
  ): Promise<Task> {
    const task = await create({ ttl: null, pollInterval: 0 });
    const recorded: RecordedTask = {
      serverName,
      slot,
      args: structuredClone(args),
      nonce: String(args['nonce']),
      taskId: task.taskId,
      held: taskControl.holdNew,
      status: task.status,
      looks: 0,
    };
    taskControl.tasks.push(recorded);
    this.byId.set(task.taskId, recorded);
    return task;
  }

  /** The task a `tasks/get` or `tasks/result` that arrived names, when it is one of this store's (counted). */
  legOf(taskId: unknown): RecordedTask | undefined {
    const task = typeof taskId === 'string' ? this.byId.get(taskId) : undefined;
    if (task) task.looks += 1;
    return task;
  }

  override async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    taskControl.asked['tasks/get'] = (taskControl.asked['tasks/get'] ?? 0) + 1;
    const task = await super.getTask(taskId, sessionId);
    const recorded = this.byId.get(taskId);
    if (!task || !recorded || task.status !== 'working') return task;
    const step = (this.steps.get(taskId) ?? 0) + 1;
    this.steps.set(taskId, step);
    if (recorded.held || step < 2) {
      await super.updateTaskStatus(taskId, 'working', `step ${step}`, sessionId);
    } else {
      const result: CallToolResult = { content: [{ type: 'text', text: `ran ${TASK_TOOL} ${recorded.nonce}` }] };
      await super.storeTaskResult(taskId, 'completed', result, sessionId);
    }
    const now = await super.getTask(taskId, sessionId);
    if (now) recorded.status = now.status;
    return now;
  }

  override async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    taskControl.asked['tasks/result'] = (taskControl.asked['tasks/result'] ?? 0) + 1;
    return super.getTaskResult(taskId, sessionId);
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    // Only the SDK's tasks/cancel handler moves a task from outside this store: the client asked to cancel it.
    if (status === 'cancelled') taskControl.asked['tasks/cancel'] = (taskControl.asked['tasks/cancel'] ?? 0) + 1;
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    const recorded = this.byId.get(taskId);
    if (recorded) recorded.status = status;
  }
}
