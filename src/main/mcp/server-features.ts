import { WorkbenchError } from '../errors';
import { readAppView } from './app-view';
import type { McpHost, McpHostDependencies } from './mcp-host';
import { completePromptArgument, getPrompt, listPrompts } from './prompts';
import { listResources, readResource } from './resources';
import type { ServerFleet } from './server-fleet';
import type { ServerSupervisor } from './server-supervisor';

/**
 * What a server offers beyond tools — resources, prompts, a tool's view — read only on a person's explicit request
 * (docs/user/mcp-servers.md#resources, #prompts; docs/user/mcp-apps.md).
 */
export type ServerFeatures = Pick<
  McpHost,
  'resources' | 'readResource' | 'appView' | 'subscribeResource' | 'prompts' | 'getPrompt' | 'completePromptArgument'
>;

export function createServerFeatures({
  config,
  fleet,
}: Pick<McpHostDependencies, 'config'> & { fleet: ServerFleet }): ServerFeatures {
  /** A request beyond tools on a ready server; the server's own error comes back as `unavailable` with its words. */
  const mcpRequest = async <T>(
    name: string,
    work: (client: ReturnType<ServerSupervisor['session']>) => Promise<T>,
  ): Promise<T> => {
    fleet.startDeferred();
    const entry = fleet.entry(name);
    if (!entry) throw new WorkbenchError('unavailable', `The MCP server "${name}" is not running.`, { server: name });
    const client = entry.supervisor.session();
    try {
      return await work(client);
    } catch (error) {
      throw new WorkbenchError(
        'unavailable',
        `The MCP server "${name}" answered: ${error instanceof Error ? error.message.replace(/^MCP error -?\d+: /, '') : String(error)}`,
        { server: name },
      );
    }
  };
  const timeout = (name: string): number => config.callTimeoutMs(name);

  return {
    async resources(serverName) {
      const { name } = fleet.require(serverName);
      return mcpRequest(name, (client) => listResources(name, client, timeout(name)));
    },
    async readResource(serverName, uri) {
      const { name } = fleet.require(serverName);
      return mcpRequest(name, (client) => readResource(name, client, uri, timeout(name)));
    },
    async appView(serverName, toolName) {
      const { name } = fleet.require(serverName);
      const uri = fleet.registry.get(name, toolName)?.ui?.resourceUri;
      if (!uri)
        throw new WorkbenchError('not_found', `The tool "${toolName}" of "${name}" has no view.`, { server: name });
      const view = await mcpRequest(name, (client) => readAppView(name, client, uri, timeout(name)));
      for (const notice of view.notices) fleet.entry(name)?.logs.push('host', `View ${uri}: ${notice}`);
      return view;
    },
    async subscribeResource(serverName, uri, on) {
      const { name } = fleet.require(serverName);
      return mcpRequest(name, async (client) => {
        if (!client.getServerCapabilities()?.resources?.subscribe) return { subscribed: false };
        if (on) await client.subscribeResource({ uri }, { timeout: timeout(name) });
        else await client.unsubscribeResource({ uri }, { timeout: timeout(name) });
        return { subscribed: on };
      });
    },
    async prompts(serverName) {
      if (serverName !== undefined) {
        const { name } = fleet.require(serverName);
        return { prompts: await mcpRequest(name, (client) => listPrompts(name, client, timeout(name))) };
      }
      fleet.startDeferred();
      const lists = await Promise.all(
        fleet
          .ready()
          .map((name) => mcpRequest(name, (client) => listPrompts(name, client, timeout(name))).catch(() => [])),
      );
      return { prompts: lists.flat() };
    },
    async getPrompt(serverName, prompt, args) {
      const { name } = fleet.require(serverName);
      return mcpRequest(name, (client) => getPrompt(name, client, prompt, args, timeout(name)));
    },
    async completePromptArgument(serverName, prompt, argument, value, context) {
      const { name } = fleet.require(serverName);
      return mcpRequest(name, (client) =>
        completePromptArgument(client, prompt, argument, value, context, timeout(name)),
      );
    },
  };
}
