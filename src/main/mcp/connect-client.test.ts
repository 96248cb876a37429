/**
 * The 1.x client as connect.ts sets it up: it builds its own output-schema validator (an Ajv instance) only when its
 * `listTools` and `callTool` are used, which the host's own paths are not (they check results themselves,
 * schema-check.ts); when they are used, the check is the SDK's as before. A real process: the misbehaving fixture,
 * whose `structured` tool declares `{ value: number }`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Connection } from './connect';
import type { NodeRuntime } from './node-runtime';
import { FIXTURE_SERVER } from './test-fixtures/harness';

const open: Connection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
});

describe('the 1.x client of a 2025-11-25 server', () => {
  it("checks structured content against a tool's output schema when its own listTools and callTool are used", async () => {
    const connection = await connect(
      {
        kind: 'stdio',
        name: 'fixture',
        command: process.execPath,
        args: [FIXTURE_SERVER],
        env: {},
        sandbox: {},
        roots: [],
      },
      {
        runtime: {} as NodeRuntime,
        initializeTimeoutMs: 10_000,
        clientVersion: 'test',
        log: () => undefined,
        onUnexpectedClose: () => undefined,
        onToolsChanged: () => undefined,
      },
    );
    open.push(connection);
    expect(connection.protocolVersion).toBe('2025-11-25');
    const client = connection.client as unknown as Client;
    await client.listTools();
    await expect(client.callTool({ name: 'structured', arguments: { value: 3 } })).resolves.toMatchObject({
      structuredContent: { value: 3 },
    });
    await expect(client.callTool({ name: 'structured', arguments: { value: 'three' } })).rejects.toThrow(
      /Structured content does not match the tool's output schema: data\/value must be number/,
    );
  });
});
