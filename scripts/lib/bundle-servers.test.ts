// The build's bundles and startup snapshots of the bundled MCP servers (bundle-servers.ts), started as the MCP host
// starts them and driven with the MCP SDK's own client: a server started from its snapshot must be the same server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledServerFileName, bundledServerSnapshotName, snapshotKey } from '../../src/main/mcp/node-runtime.ts';
import { bundleServers } from './bundle-servers.ts';
import { ROOT } from './project.ts';

const NAME = '@modelcontextprotocol/server-filesystem';
const VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', NAME, 'package.json'), 'utf8')) as { version: string }
).version;

let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bundles-'));
  await bundleServers(path.join(dir, 'servers'));
}, 60_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function withServer<T>(args: string[], use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'bundle-test', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

const text = (result: Awaited<ReturnType<Client['callTool']>>): string =>
  (result.content as Array<{ text: string }>).map((part) => part.text).join('\n');

describe('the bundled Files server', () => {
  it('is built as one file and as a startup snapshot for this Node', () => {
    expect(fs.readdirSync(path.join(dir, 'servers')).sort()).toEqual(
      [bundledServerFileName(NAME, VERSION), bundledServerSnapshotName(NAME, VERSION, snapshotKey())].sort(),
    );
  });

  it('started from its snapshot, serves the folders of its own arguments and keeps out of every other', async () => {
    const blob = path.join(dir, 'servers', bundledServerSnapshotName(NAME, VERSION, snapshotKey()));
    for (const name of ['first', 'second']) {
      const sandbox = fs.realpathSync(fs.mkdtempSync(path.join(dir, `${name}-`)));
      await withServer(['--snapshot-blob', blob, sandbox], async (client) => {
        expect(text(await client.callTool({ name: 'list_allowed_directories', arguments: {} }))).toBe(
          `Allowed directories:\n${sandbox}`,
        );
        await client.callTool({
          name: 'write_file',
          arguments: { path: path.join(sandbox, 'note.txt'), content: `in ${name}` },
        });
        expect(fs.readFileSync(path.join(sandbox, 'note.txt'), 'utf8')).toBe(`in ${name}`);
        expect(
          text(await client.callTool({ name: 'read_text_file', arguments: { path: path.join(sandbox, 'note.txt') } })),
        ).toBe(`in ${name}`);
        const outside = await client.callTool({
          name: 'read_text_file',
          arguments: { path: path.join(dir, 'servers', bundledServerFileName(NAME, VERSION)) },
        });
        expect(outside.isError).toBe(true);
        expect(text(outside)).toMatch(/Access denied - path outside allowed directories/);
      });
    }
  });

  it('lists the same tools from its snapshot, its bundle and its package', async () => {
    const sandbox = fs.mkdtempSync(path.join(dir, 'tools-'));
    const starts = [
      ['--snapshot-blob', path.join(dir, 'servers', bundledServerSnapshotName(NAME, VERSION, snapshotKey()))],
      [path.join(dir, 'servers', bundledServerFileName(NAME, VERSION))],
      [path.join(ROOT, 'node_modules', NAME, 'dist', 'index.js')],
    ];
    const lists = [];
    for (const start of starts)
      lists.push(await withServer([...start, sandbox], async (client) => (await client.listTools()).tools));
    expect(lists[0]?.length).toBeGreaterThan(10);
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
  });
});
