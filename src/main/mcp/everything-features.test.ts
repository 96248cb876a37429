/**
 * The parts of MCP beyond tools (docs/user/mcp-servers.md), against the real server-everything spawned as a child
 * process: progress and cancellation, logging, roots, resources, prompts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerInput } from '../../shared/mcp';
import type { ToolProgress } from '../../shared/messages';
import type { WorkbenchError } from '../errors';
import { resolveBundledServerEntry } from './node-runtime';
import { createTestHost, disposeTestHosts, eventually, type TestHost } from './test-fixtures/harness';

afterEach(disposeTestHosts);

const EVERYTHING: McpServerInput = { package: '@modelcontextprotocol/server-everything' };

async function everything(server: McpServerInput = EVERYTHING): Promise<TestHost> {
  const test = createTestHost({ everything: server });
  await test.waitFor('everything', (view) => view.status.state === 'ready' && view.status.toolCount > 0);
  return test;
}

/**
 * server-everything with everything the client writes to it copied to `wire` (a shell `tee` in front of its
 * stdin), so a test can see what the server received — `notifications/cancelled`, `logging/setLevel`…
 */
function tappedEverything(dir: string): {
  server: McpServerInput;
  received: () => { method?: string; params?: Record<string, unknown> }[];
} {
  const wire = path.join(dir, 'wire.jsonl');
  const entry = resolveBundledServerEntry('@modelcontextprotocol/server-everything');
  return {
    // The tap writes its copy into the data folder: its sandbox profile grants that (docs/user/sandbox.md#profiles).
    server: {
      command: 'sh',
      args: ['-c', 'tee "$0" | exec "$1" "$2" stdio', wire, process.execPath, entry],
      sandbox: { write: [dir] },
    } as McpServerInput,
    received: () =>
      fs.existsSync(wire)
        ? fs
            .readFileSync(wire, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { method?: string; params?: Record<string, unknown> })
        : [],
  };
}

describe('progress and cancellation (trigger-long-running-operation)', () => {
  it('passes each progress notification to the caller, in order, with the total', async () => {
    const test = await everything();
    const seen: ToolProgress[] = [];
    const result = await test.host.callTool({
      serverName: 'everything',
      toolName: 'trigger-long-running-operation',
      args: { duration: 0.4, steps: 4 },
      onProgress: (progress) => seen.push(progress),
    });
    expect(result.isError).toBe(false);
    expect(result.forModel.text).toContain('Long running operation completed');
    // The SDK hands notifications to their handler a microtask later than it settles the answer, so the last one,
    // written just before the answer, may come after the call ended and be dropped; the ones before it arrive in order.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([1, 2, 3, 4].slice(0, seen.length).map((progress) => ({ progress, total: 4 })));
  });

  it('restarts the call timeout on each progress notification, so a call that keeps reporting is not cut off', async () => {
    const test = await everything();
    let count = 0;
    // Twelve steps of 250 ms: 3 s in all, four times the timeout, but never 1 s without a word from the server.
    const result = await test.host.callTool({
      serverName: 'everything',
      toolName: 'trigger-long-running-operation',
      args: { duration: 3, steps: 12 },
      timeoutMs: 1000,
      onProgress: () => count++,
    });
    expect(result.isError).toBe(false);
    expect(count).toBeGreaterThanOrEqual(11);
  });

  it('without a listener sends no progress token, and the timeout is the whole call’s', async () => {
    const test = createTestHost({});
    const tapped = tappedEverything(test.dir);
    test.config.add('everything', tapped.server);
    await test.waitFor('everything', (view) => view.status.state === 'ready' && view.status.toolCount > 0);
    const error = (await test.host
      .callTool({
        serverName: 'everything',
        toolName: 'trigger-long-running-operation',
        args: { duration: 3, steps: 12 },
        timeoutMs: 1000,
      })
      .catch((caught: unknown) => caught)) as WorkbenchError;
    expect(error.code).toBe('timeout');
    const call = tapped.received().find((message) => message.method === 'tools/call');
    expect(call?.params?._meta).toBeUndefined();
  });

  it('stopping the call sends notifications/cancelled for that request to the server', async () => {
    const test = createTestHost({});
    const tapped = tappedEverything(test.dir);
    test.config.add('everything', tapped.server);
    await test.waitFor('everything', (view) => view.status.state === 'ready' && view.status.toolCount > 0);
    const controller = new AbortController();
    const seen: ToolProgress[] = [];
    const call = test.host.callTool({
      serverName: 'everything',
      toolName: 'trigger-long-running-operation',
      args: { duration: 20, steps: 40 },
      signal: controller.signal,
      onProgress: (progress) => {
        seen.push(progress);
        if (seen.length === 2) controller.abort();
      },
    });
    const error = (await call.catch((caught: unknown) => caught)) as WorkbenchError;
    expect(error.code).toBe('cancelled');
    await eventually(
      () => tapped.received().some((message) => message.method === 'notifications/cancelled'),
      'the server to receive notifications/cancelled',
    );
    const sent = tapped.received();
    const request = sent.find((message) => message.method === 'tools/call') as {
      id?: number;
      params?: { _meta?: { progressToken?: unknown } };
    };
    expect(request.params?._meta?.progressToken).toBeDefined();
    const cancelled = sent.find((message) => message.method === 'notifications/cancelled');
    expect(cancelled?.params?.requestId).toBe(request.id);
    // The server goes on serving.
    expect(
      (await test.host.callTool({ serverName: 'everything', toolName: 'echo', args: { message: 'still here' } }))
        .forModel.text,
    ).toBe('Echo: still here');
  });
});

const serverLines = (test: TestHost): { level?: string; logger?: string; text: string }[] =>
  test.host.logs('everything').lines.filter((line) => line.source === 'server');

describe('logging (notifications/message and logging/setLevel)', () => {
  it('keeps the server’s log messages with their level and logger, asks for "info" by default, and sends a new level at once', async () => {
    const test = createTestHost({});
    const tapped = tappedEverything(test.dir);
    test.config.add('everything', { ...tapped.server, roots: [test.dir] });
    await test.waitFor('everything', (view) => view.status.state === 'ready' && view.status.features?.logging === true);
    expect(test.host.server('everything').logLevel).toBe('info');
    await eventually(
      () => tapped.received().some((message) => message.method === 'logging/setLevel'),
      'logging/setLevel to reach the server',
    );
    expect(tapped.received().find((message) => message.method === 'logging/setLevel')?.params).toEqual({
      level: 'info',
    });
    // 350 ms after initialize, server-everything asks for the roots and logs what it got, at level info.
    await eventually(() => serverLines(test).length > 0, 'the server’s first log message', 10_000);
    expect(serverLines(test)[0]).toMatchObject({
      level: 'info',
      logger: 'everything-server',
      text: 'Roots updated: 1 root(s) received from client',
    });

    // Raised to "error": sent to the running server without a restart, and stored in the settings.
    const pid = test.host.server('everything').status.pid;
    test.config.edit({ name: 'everything', logLevel: 'error' });
    await eventually(
      () => tapped.received().filter((message) => message.method === 'logging/setLevel').length === 2,
      'the new level to reach the server',
    );
    expect(
      tapped
        .received()
        .filter((message) => message.method === 'logging/setLevel')
        .at(-1)?.params,
    ).toEqual({ level: 'error' });
    expect(test.host.server('everything')).toMatchObject({ logLevel: 'error', status: { state: 'ready', pid } });
    // An info message (the roots log) is no longer sent.
    const before = serverLines(test).length;
    test.config.edit({ name: 'everything', roots: [test.dir, path.join(test.dir, 'other')] });
    await eventually(
      () => tapped.received().some((message) => message.method === 'notifications/roots/list_changed'),
      'roots/list_changed',
    );
    // The server asks for the new roots after the notification, in its own time: ask until its answer has them.
    let roots = '';
    for (let attempt = 0; attempt < 50 && !roots.includes('other'); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      roots = (await test.host.callTool({ serverName: 'everything', toolName: 'get-roots-list', args: {} })).forModel
        .text;
    }
    expect(roots).toContain('other');
    expect(serverLines(test).length).toBe(before);
  });

  it('a server that offers no logging is not sent logging/setLevel', async () => {
    const test = createTestHost(null);
    await test.waitFor('Files', (view) => view.status.state === 'ready');
    expect(test.host.server('Files').status.features?.logging).toBe(false);
    expect(test.host.logs('Files').lines.some((line) => line.text.includes('log at level'))).toBe(false);
  });
});

describe('roots', () => {
  it('the Files server is told its sandbox; server-everything sees the roots of its settings, and each change', async () => {
    const files = createTestHost(null);
    const sandbox = path.join(files.dir, 'sandbox');
    await files.waitFor('Files', (view) => view.status.state === 'ready');
    expect(files.host.server('Files').roots).toEqual([sandbox]);

    const test = await everything({ ...EVERYTHING, roots: [path.join(files.dir, 'a')] });
    expect(test.host.server('everything').roots).toEqual([path.join(files.dir, 'a')]);
    const first = await test.host.callTool({ serverName: 'everything', toolName: 'get-roots-list', args: {} });
    expect(first.forModel.text).toContain(`file://${path.join(files.dir, 'a')}`);
    test.config.edit({ name: 'everything', roots: [path.join(files.dir, 'b'), path.join(files.dir, 'c')] });
    await eventually(
      () => serverLines(test).some((line) => line.text === 'Roots updated: 2 root(s) received from client'),
      'the server to fetch the new roots',
    );
    const second = await test.host.callTool({ serverName: 'everything', toolName: 'get-roots-list', args: {} });
    expect(second.forModel.text).toContain(`file://${path.join(files.dir, 'c')}`);
    expect(second.forModel.text).not.toContain(`file://${path.join(files.dir, 'a')}`);
    // Back to the default: a server that is not a filesystem server has none.
    test.config.edit({ name: 'everything', roots: null });
    expect(test.host.server('everything').roots).toEqual([]);
  });
});

describe('resources', () => {
  it('lists server-everything’s resources and templates, and reads a text and a binary one', async () => {
    const test = await everything();
    expect(test.host.server('everything').status.features).toMatchObject({
      resources: true,
      resourceSubscriptions: true,
      prompts: true,
      completions: true,
    });
    const listing = await test.host.resources('everything');
    expect(listing.resources.length).toBeGreaterThan(0);
    expect(listing.resources.every((item) => item.uri.startsWith('demo://resource/static/document/'))).toBe(true);
    expect(listing.templates.map((item) => item.uriTemplate)).toEqual(
      expect.arrayContaining([
        'demo://resource/dynamic/text/{resourceId}',
        'demo://resource/dynamic/blob/{resourceId}',
      ]),
    );

    const document = listing.resources[0] as { uri: string };
    const read = await test.host.readResource('everything', document.uri);
    expect(read.contents[0]).toMatchObject({ uri: document.uri });
    expect(read.contents[0]?.text?.length).toBeGreaterThan(0);
    const text = await test.host.readResource('everything', 'demo://resource/dynamic/text/3');
    expect(text.contents[0]?.text).toContain('Resource 3');
    const blob = await test.host.readResource('everything', 'demo://resource/dynamic/blob/2');
    expect(blob.contents[0]?.blob?.length).toBeGreaterThan(0);
  });

  it('a subscription brings notifications/resources/updated as mcp.onDidUpdateResource; unsubscribing stops them', async () => {
    const test = await everything();
    const updates: string[] = [];
    test.events.subscribe((event, payload) => {
      if (event === 'mcp.onDidUpdateResource') updates.push((payload as { uri: string }).uri);
    });
    const uri = 'demo://resource/dynamic/text/1';
    expect(await test.host.subscribeResource('everything', uri, true)).toEqual({ subscribed: true });
    // server-everything sends an update for each subscription every 5 s once its simulation is on.
    await test.host.callTool({ serverName: 'everything', toolName: 'toggle-subscriber-updates', args: {} });
    await eventually(() => updates.includes(uri), 'an update of the subscribed resource', 15_000);
    expect(await test.host.subscribeResource('everything', uri, false)).toEqual({ subscribed: false });
    const seen = updates.length;
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(updates.length).toBe(seen);
  }, 40_000);

  it('an unknown resource is the server’s words as `unavailable`; an unknown server is `not_found`', async () => {
    const test = await everything();
    await expect(test.host.readResource('everything', 'demo://nothing/here')).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('"everything" answered'),
    });
    await expect(test.host.resources('nobody')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('prompts', () => {
  it('lists server-everything’s prompts with their arguments, gets one with arguments and one with a resource, and completes an argument', async () => {
    const test = await everything();
    const { prompts } = await test.host.prompts('everything');
    expect(prompts.map((prompt) => prompt.name)).toEqual(
      expect.arrayContaining(['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']),
    );
    expect(prompts.find((prompt) => prompt.name === 'args-prompt')).toEqual({
      server: 'everything',
      name: 'args-prompt',
      title: 'Arguments Prompt',
      description: 'A prompt with two arguments, one required and one optional',
      arguments: [{ name: 'city', description: 'Name of the city', required: true }, { name: 'state' }],
    });
    // Without a server: every ready server's (Files offers none).
    expect((await test.host.prompts()).prompts).toEqual(prompts);

    expect(await test.host.getPrompt('everything', 'args-prompt', { city: 'Lyon', state: 'Rhône' })).toEqual({
      server: 'everything',
      prompt: 'args-prompt',
      messages: [{ role: 'user', text: "What's weather in Lyon, Rhône?" }],
    });
    const withResource = await test.host.getPrompt('everything', 'resource-prompt', {
      resourceType: 'Text',
      resourceId: '2',
    });
    expect(withResource.messages.map((message) => message.text).join('\n')).toMatch(
      /\[demo:\/\/resource\/dynamic\/text\/2\]\n.*Resource 2/s,
    );

    expect(await test.host.completePromptArgument('everything', 'completable-prompt', 'department', 'Eng')).toEqual({
      values: ['Engineering'],
      hasMore: false,
    });
    const names = await test.host.completePromptArgument('everything', 'completable-prompt', 'name', '', {
      department: 'Engineering',
    });
    expect(names.values.length).toBeGreaterThan(0);
    // A prompt's own refusal comes back in its words; an unknown server is `not_found`.
    await expect(
      test.host.getPrompt('everything', 'resource-prompt', { resourceType: 'x', resourceId: '1' }),
    ).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('Must be Text or Blob') });
    await expect(test.host.prompts('nobody')).rejects.toMatchObject({ code: 'not_found' });
  });
});
