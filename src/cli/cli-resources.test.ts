/** `workbench resources …` and `workbench servers log-level` from the built CLI, against the real server-everything. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpReadResourceOutput, McpResourcesOutput } from '../shared/mcp';
import { cliJson, makeHome, runCli } from './testing/cli-process';

let home: string;
beforeAll(() => {
  home = makeHome();
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('workbench resources and log levels (docs/user/mcp-servers.md)', { timeout: 300_000 }, () => {
  it('lists and reads server-everything’s resources, and sets its log level', async () => {
    expect(
      (await runCli(['servers', 'add', 'everything', '--package', '@modelcontextprotocol/server-everything'], { home }))
        .code,
    ).toBe(0);
    const list = await runCli(['resources', 'list', 'everything'], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('demo://resource/static/document/features.md');
    expect(list.stdout).toContain('demo://resource/dynamic/text/{resourceId}');
    const listed = await cliJson<McpResourcesOutput>(['resources', 'list', 'everything'], { home });
    expect(listed.templates.length).toBe(2);

    const read = await runCli(['resources', 'read', 'everything', 'demo://resource/dynamic/text/3'], { home });
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('Resource 3: This is a plaintext resource');
    const blob = await cliJson<McpReadResourceOutput>(
      ['resources', 'read', 'everything', 'demo://resource/dynamic/blob/1'],
      { home },
    );
    expect(blob.contents[0]?.blob?.length).toBeGreaterThan(0);

    const level = await runCli(['servers', 'log-level', 'everything', 'warning'], { home });
    expect(level.stdout).toContain('everything logs at warning and above.');
    expect((await runCli(['servers', 'log-level', 'everything'], { home })).stdout).toContain('warning');
    const bad = await runCli(['servers', 'log-level', 'everything', 'loud'], { home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"loud" is not a log level');
  });
});
