import type { Command } from 'commander';
import { act, leaf, type ProgramOptions } from '../command-kit';
import { CliError } from '../exit-codes';
import { formatTime, table } from '../terminal';

/** `workbench servers show NAME`: one server as its page in Settings shows it, once it was started. */
export function serversShowCommand(servers: Command, options: ProgramOptions): void {
  act(
    leaf(servers, 'show <name>', 'start one server and show its state, the MCP revision it speaks and what it runs'),
    options,
    async (context, name: string) => {
      const session = context.session();
      await session.startServers();
      const { servers: list } = await session.call('mcp.list');
      const server = list.find((item) => item.name === name);
      if (!server) throw new CliError(`There is no MCP server "${name}". See: workbench servers list`);
      if (context.json) return context.terminal.json(server);
      const { status } = server;
      const facts: [string, string | undefined][] = [
        ['Name', server.name],
        ['State', server.enabled ? stateWords(status.state, status.toolCount, status.message) : 'disabled'],
        // The MCP revision the server speaks with us (docs/user/mcp-servers.md#protocol-revisions).
        ['Protocol', status.protocolVersion && `MCP ${status.protocolVersion}`],
        ['Transport', status.transport],
        ['Reports as', status.serverInfo && `${status.serverInfo.name} ${status.serverInfo.version}`],
        ['Runs', server.identity?.description ?? launchWords(server)],
        ['Sandbox', status.containment === 'not-contained' ? 'Not contained' : status.containment],
        ['Trusted', server.trusted ? 'yes' : 'no'],
        ['Since', formatTime(status.since)],
      ];
      context.terminal.line(
        table(
          facts
            .filter((fact): fact is [string, string] => fact[1] !== undefined)
            .map(([label, value]) => [context.terminal.colors.bold(label), value]),
        ),
      );
    },
  );
}

export function launchWords(server: {
  kind: string;
  command?: string | undefined;
  package?: string | undefined;
  args?: string[] | undefined;
  url?: string | undefined;
}): string {
  if (server.url) return server.url;
  const head = server.package ?? server.command ?? '';
  return [head, ...(server.args ?? [])].join(' ');
}

export function stateWords(state: string, toolCount: number, message: string | undefined): string {
  if (state === 'ready') return `ready (${toolCount} tool${toolCount === 1 ? '' : 's'})`;
  return message ? `${state}: ${message}` : state;
}
