import type { McpTool } from '../../shared/mcp';
import type { ToolTaskState } from '../../shared/messages';
import { WorkbenchError } from '../errors';
import type { McpHost, ToolCallRequest } from './mcp-host';
import type { FleetEntry, ServerFleet } from './server-fleet';
import type { CallOptions } from './server-supervisor';
import type { RegisteredTool } from './tool-registry';
import { createRunningTasks, runsAsTask } from './tool-tasks';

/** What the supervisor is told of a call that is not a task: its clock, its cancel, its checks and whose it is. */
function callOptions(request: ToolCallRequest, entry: FleetEntry, tool: RegisteredTool): CallOptions {
  return {
    timeoutMs: request.timeoutMs ?? entry.callTimeoutMs,
    signal: request.signal,
    validateOutput: tool.validateOutput,
    chatId: request.chatId,
    exchangeId: request.exchangeId,
    toolCallId: request.toolCallId,
    definitionHash: request.definitionHash,
    onProgress: request.onProgress,
  };
}

/** The servers' tools as the contract shows them, and the calls that run them (docs/user/mcp-servers.md). */
export type ServerToolCalls = Pick<McpHost, 'tools' | 'findTool' | 'callTool' | 'cancelTask' | 'followTask'>;

export function createServerToolCalls({ fleet }: { fleet: ServerFleet }): ServerToolCalls {
  const { registry } = fleet;
  const tasks = createRunningTasks();
  const toContract = (tool: RegisteredTool): McpTool => {
    const { validateOutput: _validator, ...rest } = tool;
    const entry = fleet.entry(tool.serverName);
    const ready = entry?.supervisor.status().state === 'ready';
    return { ...rest, available: ready && !tool.problem, ...(entry?.tools === 'last-launch' ? { cached: true } : {}) };
  };
  /** The tool a call names and its server's entry, when the call can be sent; throws why not otherwise. */
  const callable = ({
    serverName,
    toolName,
    definitionHash,
  }: ToolCallRequest): { entry: FleetEntry; tool: RegisteredTool } => {
    fleet.startDeferred();
    const tool = registry.get(serverName, toolName);
    if (!tool) {
      fleet.require(serverName);
      throw new WorkbenchError('not_found', `The MCP server "${serverName}" has no tool named "${toolName}".`, {
        server: serverName,
        tool: toolName,
      });
    }
    if (tool.problem)
      throw new WorkbenchError(
        'invalid_input',
        `The tool "${toolName}" of "${serverName}" cannot be used: ${tool.problem}`,
        {
          server: serverName,
          tool: toolName,
        },
      );
    const entry = fleet.entry(serverName);
    if (!entry)
      throw new WorkbenchError('unavailable', `The MCP server "${serverName}" is not running.`, { server: serverName });
    if (entry.tools === 'last-launch')
      throw new WorkbenchError('unavailable', `The MCP server "${serverName}" has not listed its tools yet.`, {
        server: serverName,
      });
    if (definitionHash !== undefined && tool.definitionHash !== definitionHash) {
      throw new WorkbenchError(
        'conflict',
        `The tool "${toolName}" of "${serverName}" changed after the call was decided (the server now lists another definition), so it did not run.`,
        { server: serverName, tool: toolName },
      );
    }
    return { entry, tool };
  };
  return {
    cancelTask: (toolCallId) => tasks.cancel(toolCallId),
    followTask(request) {
      const entry = fleet.entry(request.serverName);
      if (!entry)
        return Promise.reject(
          new WorkbenchError('unavailable', `The MCP server "${request.serverName}" is not running.`, {
            server: request.serverName,
          }),
        );
      const tool = registry.get(request.serverName, request.toolName);
      const running = tasks.add(request.toolCallId);
      return entry.supervisor
        .followTask(request.toolName, request.taskId, request.args, {
          validateOutput: tool?.validateOutput,
          chatId: request.chatId,
          exchangeId: request.exchangeId,
          toolCallId: request.toolCallId,
          definitionHash: request.definitionHash,
          cancel: running.signal,
          onState: (state) => request.onTask(state),
          stillFollowed: request.stillFollowed,
        })
        .finally(running.done);
    },
    tools(serverName) {
      if (serverName !== undefined) fleet.require(serverName);
      return registry.list(serverName).map(toContract);
    },
    findTool(providerName) {
      const tool = registry.resolve(providerName);
      return tool ? toContract(tool) : undefined;
    },
    callTool(request) {
      let entry: FleetEntry;
      let tool: RegisteredTool;
      try {
        ({ entry, tool } = callable(request));
      } catch (error) {
        return Promise.reject(error as Error);
      }
      if (runsAsTask(tool.taskSupport)) {
        // A task (docs/user/mcp-servers.md#tasks): it passes the same door, then runs until it ends or is cancelled.
        const running = tasks.add(request.toolCallId ?? '');
        return entry.supervisor
          .callToolTask(request.toolName, request.args, {
            validateOutput: tool.validateOutput,
            chatId: request.chatId,
            exchangeId: request.exchangeId,
            toolCallId: request.toolCallId,
            definitionHash: request.definitionHash,
            cancel: running.signal,
            onState: (state) => request.onTask?.(state),
            stillFollowed: request.stillFollowed,
            onProgress: request.onProgress,
          })
          .finally(running.done);
      }
      if (entry.supervisor.offersTasks()) {
        // A 2026-07-28 server that offers the tasks extension: the call declares it and the server decides whether
        // it runs as a task (docs/dev/protocol-2026.md#tasks-on-2026-07-28), cancelled like any task.
        const running = tasks.add(request.toolCallId ?? '');
        const task = {
          cancel: running.signal,
          onState: (state: ToolTaskState) => request.onTask?.(state),
          stillFollowed: request.stillFollowed,
        };
        return entry.supervisor
          .callTool(request.toolName, request.args, { ...callOptions(request, entry, tool), task })
          .finally(running.done);
      }
      // The supervisor's promise itself: an async frame around the call costs more than its bookkeeping
      // (mcp-call-overhead, docs/dev/benchmarks.md).
      return entry.supervisor.callTool(request.toolName, request.args, callOptions(request, entry, tool));
    },
  };
}
