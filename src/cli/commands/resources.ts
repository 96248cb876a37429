import type { Command } from 'commander';
import { act, leaf, type ProgramOptions } from '../command-kit';
import { table } from '../terminal';
import { sanitizeForTerminal } from '../terminal-text';
import { firstLine } from './servers';

/**
 * `workbench resources …`: a server's resources (docs/user/mcp-servers.md#resources). Reading one is a request the
 * person makes here, by name; nothing a model says can make it.
 */
export function resourcesCommand(program: Command, options: ProgramOptions): void {
  const resources = program.command('resources').description("browse and read an MCP server's resources");

  act(
    leaf(resources, 'list <server>', 'start the server and list its resources and resource templates'),
    options,
    async (context, server: string) => {
      const session = context.session();
      await session.startServers();
      const listing = await session.call('mcp.resources', { name: server });
      if (context.json) return context.terminal.json(listing);
      const { colors } = context.terminal;
      if (listing.resources.length === 0 && listing.templates.length === 0)
        return context.terminal.line(`${listing.name} offers no resources.`);
      if (listing.resources.length > 0) {
        context.terminal.line(
          table([
            ['URI', 'NAME', 'TYPE', 'DESCRIPTION'].map((cell) => colors.bold(cell)),
            ...listing.resources.map((item) => [
              item.uri,
              item.title ?? item.name,
              item.mimeType ?? '',
              firstLine(item.description ?? '', 50),
            ]),
          ]),
        );
      }
      if (listing.templates.length > 0) {
        context.terminal.line(colors.bold(`\nTemplates (read one with a URI that fills it in):`));
        for (const item of listing.templates)
          context.terminal.line(`  ${item.uriTemplate}  ${colors.dim(item.title ?? item.name)}`);
      }
    },
  );

  act(
    leaf(resources, 'read <server> <uri>', 'read one resource and print its contents (binary contents as their size)'),
    options,
    async (context, server: string, uri: string) => {
      const session = context.session();
      await session.startServers();
      const read = await session.call('mcp.readResource', { name: server, uri });
      if (context.json) return context.terminal.json(read);
      const { colors } = context.terminal;
      for (const content of read.contents) {
        context.terminal.line(
          colors.dim(
            `── ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''}${content.truncated ? ' — cut at 1 MB' : ''}`,
          ),
        );
        if (content.text !== undefined) context.terminal.line(sanitizeForTerminal(content.text));
        else context.terminal.line(colors.dim(`[binary: ${Math.round(((content.blob ?? '').length * 3) / 4)} bytes]`));
      }
    },
  );
}
