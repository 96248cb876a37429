import type { Services } from '../services';
import type { MethodHandlers } from './dispatcher';

/** The contract's methods, each bound to the service that answers it. Translation only: no logic here. */
export function createHandlers(services: Services): MethodHandlers {
  return {
    'app.info': () => services.appInfo(),
    'chat.create': (input) => services.chats.create(input?.title),
    'chat.list': () => ({ chats: services.chats.list() }),
    'chat.get': ({ id }) => services.chats.get(id),
    'chat.rename': ({ id, title }) => services.chats.rename(id, title),
    'chat.delete': ({ id }) => {
      services.chats.delete(id);
      return { id };
    },
    'mcp.list': () => ({ servers: services.mcp.list() }),
    'mcp.add': ({ name, server }) => services.mcp.server(services.mcpServers.add(name, server).name),
    'mcp.edit': (change) => services.mcp.server(services.mcpServers.edit(change).name),
    'mcp.remove': ({ name }) => {
      services.mcpServers.remove(name);
      return { name };
    },
    'mcp.setEnabled': ({ name, enabled }) => services.mcp.server(services.mcpServers.setEnabled(name, enabled).name),
    'mcp.restart': ({ name }) => services.mcp.restart(services.mcpServers.get(name).name),
    'mcp.logs': ({ name, limit }) => services.mcp.logs(services.mcpServers.get(name).name, limit),
    'mcp.tools': (input) => ({ tools: services.mcp.tools(input?.name === undefined ? undefined : services.mcpServers.get(input.name).name) }),
    'mcp.importPreview': ({ source }) => services.mcpServers.previewImport(source),
    'mcp.import': ({ source, only }) => services.mcpServers.import(source, only),
  };
}
