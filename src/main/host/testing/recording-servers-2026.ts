/**
 * The trust invariant's 2026-07-28 server (docs/dev/protocol-2026.md), built from the SDK v2's server packages: the
 * same catalogue and the same recording as recording-servers.ts, the 2026-07-28 way. It asks the model (sampling) and
 * the person (elicitation) with an `input_required` result; the client answers by sending the call again with the
 * answers, and that further leg is reported to `onLeg` at the moment it arrives, so the invariant checks that no deny
 * rule in force then matched it.
 */
import { inputRequired, inputResponse, Server, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import {
  ELICITATION_COMMANDS,
  ELICITATION_SCHEMA,
  inputSchemaOf,
  needsPageFirst,
  pageUrl,
  SAMPLING_COMMANDS,
  samplingPrompt,
  toolsOfLabel,
} from './invariant-catalogue';
import { pagesAsked, type ServerListeners } from './recording-servers';
import { MODERN_TASK_COMMANDS, runAsTask, serveTasks } from './recording-tasks-2026';

/** The catalogue's servers that speak 2026-07-28. */
export const MODERN_LABELS: readonly string[] = ['Shell'];

export function modernServerFor(serverName: string, slot: string, listeners: ServerListeners): Server {
  // It offers the tasks extension: some of its calls run only as tasks (recording-tasks-2026.ts).
  const server = new Server(
    { name: `invariant-${serverName}`, version: '2.0.0' },
    { capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } },
  );
  const tools = toolsOfLabel(serverName);
  server.setRequestHandler('tools/list', async () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: `${tool.name} (invariant test)`,
      inputSchema: inputSchemaOf(tool) as { type: 'object' },
      annotations: { readOnlyHint: tool.readOnly },
    })),
  }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (!tools.some((tool) => tool.name === name)) throw new Error(`unknown tool ${name}`);
    const responses = ctx.mcpReq.inputResponses;
    const nonce = String(args['nonce']);
    if (responses !== undefined) {
      listeners.onLeg?.(serverName, slot, name, structuredClone(args));
    } else {
      if (needsPageFirst(name, args) && !pagesAsked.has(nonce)) {
        pagesAsked.add(nonce);
        listeners.onPageRequired?.(serverName, nonce);
        throw new UrlElicitationRequiredError(
          [{ mode: 'url', url: pageUrl(nonce), message: `consent ${nonce}`, elicitationId: `page-${nonce}` }],
          'Open the consent page first.',
        );
      }
      if (name === 'run' && MODERN_TASK_COMMANDS.includes(String(args['command'])))
        return (await runAsTask(serverName, slot, args, ctx.mcpReq.envelope, listeners)) as never;
      listeners.onCall(serverName, slot, name, structuredClone(args));
    }
    const command = String(args['command']);
    if (name === 'run' && SAMPLING_COMMANDS.includes(command) && typeof args['nonce'] === 'string') {
      const answer = inputResponse(responses, 'sampling');
      if (answer.kind !== 'sampling')
        return inputRequired({
          inputRequests: {
            sampling: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: samplingPrompt(args['nonce']) } }],
              maxTokens: 32,
            }),
          },
        });
      const content = answer.result.content;
      listeners.onSamplingAnswer(serverName, !Array.isArray(content) && content.type === 'text' ? content.text : '');
    }
    if (name === 'run' && ELICITATION_COMMANDS.includes(command) && typeof args['nonce'] === 'string') {
      const answer = inputResponse(responses, 'confirm');
      if (answer.kind !== 'elicit') {
        listeners.onElicitationRequest(serverName, args['nonce']);
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `confirm ${args['nonce']}`,
              requestedSchema: ELICITATION_SCHEMA as never,
            }),
          },
        });
      }
      listeners.onElicitationAnswer(serverName, args['nonce'], answer.action, answer.content);
    }
    return { content: [{ type: 'text', text: `ran ${name}` }] };
  });
  serveTasks(server, serverName, listeners);
  return server;
}
