import type { McpTool } from '../../shared/mcp';
import { visibleToModel } from '../../shared/mcp-apps';
import type { ModelToolCall, ToolCallRecord } from '../../shared/messages';
import type { ToolSpec } from '../llm/conversation';

/** The tools one request offers a model, and the way back from the names the model uses. */
export interface ToolOffer {
  readonly specs: ToolSpec[];
  /** The tool a provider-safe name stands for, when this request offered it. */
  find(providerName: string): McpTool | undefined;
}

/**
 * Every tool that can be called now (its server is ready, its definition is usable), or once its server has started
 * (a `cached` definition of its last launch, which a call checks against the live one), under its provider-safe name.
 * A tool whose `_meta.ui.visibility` leaves out "model" is for its server's view alone: never offered, so a call of
 * it by name ends as a call of a tool that was not offered (docs/user/mcp-apps.md#who-may-call-a-tool).
 */
export function offerTools(tools: readonly McpTool[]): ToolOffer {
  const byName = new Map<string, McpTool>();
  for (const tool of tools)
    if ((tool.available || tool.cached) && !tool.problem && visibleToModel(tool)) byName.set(tool.providerName, tool);
  const specs = [...byName.values()].map((tool) => ({
    name: tool.providerName,
    description: tool.description ?? tool.title ?? `${tool.name} from ${tool.serverName}`,
    inputSchema: tool.inputSchema,
  }));
  return { specs, find: (name) => byName.get(name) };
}

/**
 * The record a call starts as. A call of a tool this request did not offer (unknown, internal, or gone since) or
 * with arguments that are not a JSON object ends here as an error: nothing runs, nothing is asked, and the model
 * is told why.
 */
export function recordOf(
  call: ModelToolCall,
  toolCallId: string,
  offer: ToolOffer,
): { record: ToolCallRecord; tool: McpTool | undefined } {
  const tool = offer.find(call.name);
  const args = call.arguments.kind === 'parsed' ? call.arguments.value : {};
  const base: ToolCallRecord = {
    toolCallId,
    serverName: tool?.serverName ?? '',
    toolName: tool?.name ?? call.name,
    args,
    modelCall: call,
    status: 'pending',
    ...(tool?.title === undefined ? {} : { title: tool.title }),
    ...(tool?.annotations === undefined ? {} : { annotations: tool.annotations }),
    ...(tool?.ui?.resourceUri === undefined ? {} : { viewUri: tool.ui.resourceUri }),
  };
  if (!tool) {
    const offered = offer.specs.map((spec) => spec.name);
    return {
      tool,
      record: {
        ...base,
        status: 'error',
        error: `There is no tool named "${call.name}". The tools you can call are: ${offered.length > 0 ? offered.join(', ') : 'none'}.`,
      },
    };
  }
  if (call.arguments.kind === 'malformed') {
    return {
      tool,
      record: {
        ...base,
        status: 'error',
        error: `The arguments were not a JSON object (${call.arguments.problem}), so the tool did not run. Call it again with a JSON object that fits its input schema.`,
      },
    };
  }
  return { tool, record: base };
}
