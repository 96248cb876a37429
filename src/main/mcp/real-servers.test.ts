/**
 * The host against MCP servers nobody here wrote: the filesystem, memory and everything servers
 * from npm, spawned for real as child processes on the app's own Node runtime.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxAvailability } from './sandbox/bwrap';
import { createTestHost, disposeTestHosts } from './test-fixtures/harness';

afterEach(disposeTestHosts);

const FILESYSTEM_TOOLS = [
  'create_directory',
  'directory_tree',
  'edit_file',
  'get_file_info',
  'list_allowed_directories',
  'list_directory',
  'list_directory_with_sizes',
  'move_file',
  'read_file',
  'read_media_file',
  'read_multiple_files',
  'read_text_file',
  'search_files',
  'write_file',
];

describe('the default "Files" server on a fresh install', () => {
  it('is the bundled filesystem server rooted at <data dir>/sandbox, created on first run, ready with its 14 tools', async () => {
    const test = createTestHost(null);
    const sandbox = path.join(test.dir, 'sandbox');
    expect(fs.existsSync(sandbox)).toBe(true);
    const files = await test.waitFor('Files', 'ready');
    expect(files).toMatchObject({
      name: 'Files',
      enabled: true,
      kind: 'stdio',
      package: '@modelcontextprotocol/server-filesystem',
      args: [sandbox],
    });
    // Contained by default (docs/user/sandbox.md): bubblewrap is the process the host spawned. Where no sandbox can
    // run, the test harness starts it unconfined (unconfinedWhereNoSandbox), and it says so.
    if (sandboxAvailability().available) {
      expect(files.status.containment).toBe('contained');
      expect(fs.readFileSync(`/proc/${files.status.pid}/cmdline`, 'utf8').split('\0')[0]).toMatch(/bwrap$/);
    } else expect(files.status.containment).toBe('not-contained');
    await test.waitFor('Files', (server) => server.status.toolCount === 14);
    const tools = test.host.tools('Files');
    expect(tools.map((tool) => tool.name).sort()).toEqual(FILESYSTEM_TOOLS);
    expect(tools.every((tool) => tool.available && tool.serverName === 'Files')).toBe(true);
    // The first launch writes nothing to settings.json: the default stays a default until something changes.
    expect(fs.existsSync(path.join(test.dir, 'settings.json'))).toBe(false);
  });

  it('shows each tool with its annotations, flagged untrusted until the user trusts the server', async () => {
    const test = createTestHost(null);
    await test.waitFor('Files', (server) => server.status.toolCount === 14);
    const byName = new Map(test.host.tools('Files').map((tool) => [tool.name, tool]));
    expect(byName.get('read_text_file')).toMatchObject({
      annotations: { readOnlyHint: true },
      annotationsTrusted: false,
      providerName: 'Files__read_text_file',
      inputSchema: { type: 'object' },
    });
    expect(byName.get('write_file')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('read_text_file')?.definitionHash).toMatch(/^[0-9a-f]{64}$/);
    expect(byName.get('read_text_file')?.outputSchema).toBeDefined();

    test.config.edit({ name: 'Files', trusted: true });
    expect(test.host.tools('Files').every((tool) => tool.annotationsTrusted)).toBe(true);
    // Trusting changes no definition, so no hash changes and the server was not restarted.
    expect(test.host.tools('Files').find((tool) => tool.name === 'read_text_file')?.definitionHash).toBe(
      byName.get('read_text_file')?.definitionHash,
    );
    expect(test.host.server('Files').status.state).toBe('ready');
  });

  it('writes and reads inside the sandbox, and a path outside it comes back as a tool error, not a crash', async () => {
    const test = createTestHost(null);
    await test.waitFor('Files', (server) => server.status.toolCount === 14);
    const note = path.join(test.dir, 'sandbox', 'note.txt');
    const written = await test.host.callTool({
      serverName: 'Files',
      toolName: 'write_file',
      args: { path: note, content: 'hello sandbox' },
    });
    expect(written.isError).toBe(false);
    expect(fs.readFileSync(note, 'utf8')).toBe('hello sandbox');

    const read = await test.host.callTool({ serverName: 'Files', toolName: 'read_text_file', args: { path: note } });
    expect(read).toMatchObject({ isError: false, forModel: { text: 'hello sandbox', truncated: false } });
    expect(read.structuredContent).toEqual({ content: 'hello sandbox' });

    const outside = await test.host.callTool({
      serverName: 'Files',
      toolName: 'read_text_file',
      args: { path: '/etc/hostname' },
    });
    expect(outside.isError).toBe(true);
    expect(outside.forModel.text).toMatch(/outside allowed directories/);
    expect(test.host.server('Files').status.state).toBe('ready');
    // Still serving after the refusal.
    const again = await test.host.callTool({ serverName: 'Files', toolName: 'list_allowed_directories', args: {} });
    expect(again.forModel.text).toContain(path.join(test.dir, 'sandbox'));
  });
});

describe('the memory and everything servers', () => {
  it('memory: creates entities and reads them back', async () => {
    const test = createTestHost({});
    const memoryFile = path.join(test.dir, 'memory.jsonl');
    test.config.add('memory', {
      package: '@modelcontextprotocol/server-memory',
      env: { MEMORY_FILE_PATH: memoryFile },
    });
    await test.waitFor('memory', (server) => server.status.toolCount === 9);
    expect(test.host.tools('memory').find((tool) => tool.name === 'read_graph')?.annotations).toMatchObject({
      readOnlyHint: true,
    });
    const created = await test.host.callTool({
      serverName: 'memory',
      toolName: 'create_entities',
      args: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
    });
    expect(created.isError).toBe(false);
    expect(test.host.server('memory').status.containment).toBe(
      sandboxAvailability().available ? 'contained' : 'not-contained',
    );
    const graph = await test.host.callTool({ serverName: 'memory', toolName: 'read_graph', args: {} });
    expect(graph.structuredContent).toMatchObject({
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    expect(fs.readFileSync(memoryFile, 'utf8')).toContain('Ada');
  });

  it('everything: echo, resource links, an image and structured content, normalised', async () => {
    const test = createTestHost({ everything: { package: '@modelcontextprotocol/server-everything' } });
    await test.waitFor('everything', (server) => server.status.toolCount > 0);
    const echo = await test.host.callTool({
      serverName: 'everything',
      toolName: 'echo',
      args: { message: 'hi there' },
    });
    expect(echo).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'Echo: hi there' }],
      forModel: { text: 'Echo: hi there' },
    });

    const links = await test.host.callTool({
      serverName: 'everything',
      toolName: 'get-resource-links',
      args: { count: 2 },
    });
    expect(links.content.filter((part) => part.type === 'resource_link')).toHaveLength(2);
    expect(links.forModel.text).toMatch(/\[resource link: .* <demo:\/\/resource\//);

    const image = await test.host.callTool({ serverName: 'everything', toolName: 'get-tiny-image', args: {} });
    expect(
      image.content.some((part) => part.type === 'image' && part.mimeType === 'image/png' && part.data.length > 0),
    ).toBe(true);
    expect(image.forModel.text).toMatch(/\[image: image\/png, /);

    const weather = await test.host.callTool({
      serverName: 'everything',
      toolName: 'get-structured-content',
      args: { location: 'New York' },
    });
    expect(weather.isError).toBe(false);
    expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });
});
