/**
 * The mcp.* contract through the real composition (createServices → createHandlers → createDispatcher),
 * with servers running as child processes. Secrets go in and never come out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../shared/errors';
import type { McpServerView, McpTool } from '../../shared/mcp';
import { FIXTURE_SERVER } from '../mcp/test-fixtures/harness';
import { createServices, type Services } from '../services';
import { unconfinedWhereNoSandbox } from '../testing/skip-reason';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

const SECRET_ENV = 'env-secret-4711';
const SECRET_HEADER = 'Bearer header-secret-0815';

let dir: string;
let services: Services;
let dispatch: Dispatch;
/** Everything that crossed the contract: every reply and every event. */
let crossed: string[];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-mcp-contract-'));
  services = createServices({
    dataDir: dir,
    host: 'browser',
    version: '0.0.0-test',
    mcp: { restart: { initialDelayMs: 20, maxDelayMs: 100 }, ...unconfinedWhereNoSandbox() },
  });
  const handlers = createDispatcher(createHandlers(services), (error) => {
    throw error;
  });
  crossed = [];
  dispatch = async (method, input) => {
    const envelope = await handlers(method, input);
    crossed.push(JSON.stringify(envelope));
    return envelope;
  };
  services.events.subscribe((event, payload) => crossed.push(JSON.stringify({ event, payload })));
});

afterEach(async () => {
  await services.mcp.stop();
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function ok<T>(envelope: Envelope): T {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.value as T;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function server(name: string): Promise<McpServerView | undefined> {
  return ok<{ servers: McpServerView[] }>(await dispatch('mcp.list', {})).servers.find((item) => item.name === name);
}

describe('mcp.* through the dispatcher', () => {
  it('a new user’s first launch: Files is listed at once, then ready with its 14 tools', async () => {
    expect(await server('Files')).toMatchObject({ enabled: true, status: { state: 'stopped' } });
    services.mcp.start();
    expect((await server('Files'))?.status.state).toBe('starting');
    await until(async () => (await server('Files'))?.status.toolCount === 14, 'Files to be ready');
    expect((await server('Files'))?.status.state).toBe('ready');
    const tools = ok<{ tools: McpTool[] }>(await dispatch('mcp.tools', { name: 'Files' })).tools;
    expect(tools).toHaveLength(14);
    expect(tools.find((tool) => tool.name === 'read_text_file')).toMatchObject({
      annotations: { readOnlyHint: true },
      annotationsTrusted: false,
      available: true,
    });
    expect(
      ok<{ lines: { text: string }[] }>(await dispatch('mcp.logs', { name: 'Files' }))
        .lines.map((line) => line.text)
        .join('\n'),
    ).toContain('Connected to secure-filesystem-server');
  });

  it('add, edit, disable, restart, logs, tools, remove — and no secret value in any reply or event', async () => {
    services.mcp.start();
    const added = ok<McpServerView>(
      await dispatch('mcp.add', {
        name: 'fixture',
        server: {
          command: process.execPath,
          args: [FIXTURE_SERVER],
          env: { API_TOKEN: SECRET_ENV, FIXTURE_LOG_ENV: 'API_TOKEN' },
        },
      }),
    );
    expect(added).toMatchObject({ name: 'fixture', envKeys: ['API_TOKEN', 'FIXTURE_LOG_ENV'], kind: 'stdio' });
    expect(
      ok<McpServerView>(
        await dispatch('mcp.add', {
          name: 'remote',
          server: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: SECRET_HEADER }, enabled: false },
        }),
      ),
    ).toMatchObject({
      headerKeys: ['Authorization'],
      status: { state: 'stopped' },
    });
    await until(async () => ((await server('fixture'))?.status.toolCount ?? 0) > 0, 'the fixture to be ready');

    const edited = ok<McpServerView>(
      await dispatch('mcp.edit', { name: 'fixture', displayName: 'Fixture', trusted: true, callTimeoutMs: 5000 }),
    );
    expect(edited).toMatchObject({ displayName: 'Fixture', trusted: true, callTimeoutMs: 5000 });
    const tools = ok<{ tools: McpTool[] }>(await dispatch('mcp.tools', { name: 'fixture' })).tools;
    expect(tools.every((tool) => tool.annotationsTrusted)).toBe(true);
    expect(ok<{ tools: McpTool[] }>(await dispatch('mcp.tools', undefined)).tools.length).toBeGreaterThanOrEqual(
      tools.length,
    );

    const logs = ok<{ lines: { text: string }[] }>(await dispatch('mcp.logs', { name: 'fixture', limit: 1000 }));
    expect(logs.lines.some((line) => line.text.includes('•••'))).toBe(true);

    const restarted = ok<McpServerView>(await dispatch('mcp.restart', { name: 'fixture' }));
    expect(restarted.status.state).toBe('ready');

    expect(ok<McpServerView>(await dispatch('mcp.setEnabled', { name: 'fixture', enabled: false })).status.state).toBe(
      'stopped',
    );
    await until(async () => (await server('fixture'))?.status.state === 'stopped', 'the fixture to stop');
    expect(ok(await dispatch('mcp.remove', { name: 'fixture' }))).toEqual({ name: 'fixture' });
    expect(await server('fixture')).toBeUndefined();

    const everything = crossed.join('\n');
    expect(everything).not.toContain(SECRET_ENV);
    expect(everything).not.toContain('header-secret-0815');
    expect(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')).not.toMatch(/env-secret-4711|header-secret-0815/);
  });

  it('imports from a file’s text: preview, then import; secrets stay inside', async () => {
    const text = JSON.stringify({
      mcpServers: {
        Files: { command: 'npx', args: ['x'] },
        api: { url: 'https://api.example.com/mcp', headers: { Authorization: SECRET_HEADER } },
      },
    });
    const preview = ok<{ add: { name: string; renamed: boolean; headerKeys: string[] }[] }>(
      await dispatch('mcp.importPreview', { source: { fileName: 'mcp.json', text } }),
    );
    expect(preview.add).toEqual([
      expect.objectContaining({ name: 'Files-2', renamed: true }),
      expect.objectContaining({ name: 'api', renamed: false, headerKeys: ['Authorization'] }),
    ]);
    expect(ok(await dispatch('mcp.import', { source: { fileName: 'mcp.json', text } }))).toEqual({
      added: ['Files-2', 'api'],
      skip: [],
    });
    expect((await server('api'))?.headerKeys).toEqual(['Authorization']);
    expect(crossed.join('\n')).not.toContain('header-secret-0815');
  });

  it('answers clear errors: unknown server, taken name, bad JSON to import, invalid input', async () => {
    const failure = async (method: string, input: unknown): Promise<{ code: string; message: string }> => {
      const envelope = await dispatch(method, input);
      if (envelope.ok) throw new Error(`${method} should have failed`);
      return envelope.error;
    };
    expect(await failure('mcp.restart', { name: 'nope' })).toMatchObject({
      code: 'not_found',
      message: 'No MCP server is named "nope".',
    });
    expect(await failure('mcp.logs', { name: 'nope' })).toMatchObject({ code: 'not_found' });
    ok(await dispatch('mcp.setEnabled', { name: 'Files', enabled: false }));
    expect(await failure('mcp.restart', { name: 'files' })).toMatchObject({
      code: 'invalid_input',
      message: 'The MCP server "Files" is disabled; enable it to start it.',
    });
    expect(await failure('mcp.add', { name: 'Files', server: { command: 'x' } })).toMatchObject({ code: 'conflict' });
    expect(await failure('mcp.add', { name: 'x', server: { command: 'x', url: 'http://a' } })).toMatchObject({
      code: 'invalid_input',
    });
    expect(await failure('mcp.add', { name: 'x', server: { url: 'file:///etc/passwd' } })).toMatchObject({
      code: 'invalid_input',
    });
    expect(await failure('mcp.importPreview', { source: { fileName: 'claude.json', text: '{ nope' } })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^Cannot import from claude\.json: it is not valid JSON/),
    });
  });
});
