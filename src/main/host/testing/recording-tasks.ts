/**
 * The tasks of the trust invariant's recording servers (docs/dev/testing.md, "The trust invariant"): Files' (and
 * Other's) `write_report` must run as an MCP task (`execution.taskSupport: "required"`, 2025-11-25). The SDK's server
 * answers `tasks/get`, `tasks/result` and `tasks/cancel` from this store; the call itself reached the server (and was
 * recorded as a run) when `tools/call` created the task. A task moves on each time it is looked up — `step 1`, then
 * its result — with a poll interval of 0, so the client's polling runs on the timers due now; a task created while
 * the harness holds new tasks stays `working` (its status message still moving) until it is released or cancelled, so
 * that a step can cancel it or stop the reply while it runs.
 */
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { CallToolResult, Result, Task } from '@modelcontextprotocol/sdk/types.js';

/** The tool of the recording servers that runs as a task. */
export const TASK_TOOL = 'write_report';

/** What the harness sees of the servers' tasks and how it holds them. */
export interface RecordedTask {
  readonly serverName: string;
  readonly nonce: string;
  readonly taskId: string;
  held: boolean;
  /** The task's status on the server, as it is now. */
  status: Task['status'];
}

/** Every task the recording servers created, and what the client asked about them. */
export interface TaskControl {
  readonly tasks: RecordedTask[];
  /** Tasks created while this is true are held (stay `working`) until `release`. */
  holdNew: boolean;
  /** Lets every held task end: its next look-up completes it. */
  release(): void;
  /** How often the client asked each task method (`tasks/get`, `tasks/result`, `tasks/cancel`). */
  readonly asked: Record<string, number>;
}

export const taskControl: TaskControl = {
  tasks: [],
  holdNew: false,
  release() {
    for (const task of taskControl.tasks) task.held = false;
  },
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
    nonce: string,
  ): Promise<Task> {
    const task = await create({ ttl: null, pollInterval: 0 });
    const recorded: RecordedTask = {
      serverName,
      nonce,
      taskId: task.taskId,
      held: taskControl.holdNew,
      status: task.status,
    };
    taskControl.tasks.push(recorded);
    this.byId.set(task.taskId, recorded);
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
