/**
 * Widening and narrowing a server's sandbox profile (docs/user/sandbox.md#widening): recorded in the real audit log
 * before it applies, refused where the organisation forbids it; and a hostile server's blocks land in the audit log as
 * rows naming the server, the path or host, and the call.
 */
import { needsSandbox } from '../testing/skip-reason';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTempAuditLog, type TempAuditLog } from '../audit/audit-test-support';
import { createTestHost, disposeTestHosts, HOSTILE_SERVER } from '../mcp/test-fixtures/harness';
import { sandboxAvailability } from '../mcp/sandbox/bwrap';
import { NO_SANDBOX_LIMITS } from '../mcp/sandbox/limits';
import { createSandboxProfileService } from './sandbox-profiles';

const logs: TempAuditLog[] = [];
const profileServices: ReturnType<typeof createSandboxProfileService>[] = [];
afterEach(async () => {
  await disposeTestHosts();
  // As the app does when it closes (services.ts): open bursts of blocks are recorded before the audit log closes.
  for (const profiles of profileServices.splice(0)) profiles.flushBlocks();
  for (const log of logs.splice(0)) log.close();
});

function setUp(limits = NO_SANDBOX_LIMITS) {
  const audit = openTempAuditLog();
  logs.push(audit);
  const test = createTestHost(
    { Files: { package: '@modelcontextprotocol/server-filesystem', args: [os.tmpdir()] } },
    { start: false },
  );
  const profiles = createSandboxProfileService({
    config: test.config,
    audit: audit.log,
    limits,
    dataDir: test.dir,
    actor: 'user',
  });
  return { audit, test, profiles };
}

describe('a sandbox profile, widened and narrowed', () => {
  it('records each grant in the audit log with what it grants, stores it in the server’s own entry, and takes it back', () => {
    const { audit, test, profiles } = setUp();
    profiles.widen('files', { kind: 'read', path: '/opt/data/../data/' });
    profiles.widen('Files', { kind: 'connect', host: 'API.example.com:443' });
    expect(test.config.sandboxSettings('Files').settings).toEqual({
      read: ['/opt/data'],
      hosts: ['api.example.com:443'],
    });
    const rows = audit.log.query({ kind: 'policy' }).entries;
    expect(rows.map((row) => row.decidedBy)).toEqual(
      expect.arrayContaining([
        'Sandbox: Files may read /opt/data (and everything in it)',
        'Sandbox: Files may connect to api.example.com:443 (that host and port only)',
      ]),
    );
    expect(profiles.view('Files')).toMatchObject({
      kind: sandboxAvailability().available ? 'contained' : 'not-contained',
      granted: { read: ['/opt/data'], hosts: ['api.example.com:443'] },
    });
    profiles.narrow('Files', { kind: 'read', path: '/opt/data' });
    expect(test.config.sandboxSettings('Files').settings).toEqual({ hosts: ['api.example.com:443'] });
    expect(
      audit.log
        .query({ kind: 'policy' })
        .entries.some((row) => row.decidedBy === 'Sandbox: Files may no longer read /opt/data'),
    ).toBe(true);
    expect(() => profiles.narrow('Files', { kind: 'read', path: '/opt/data' })).toThrow(/does not grant/);
  });

  it('refuses bad grants and what the organisation forbids, and records nothing for them', () => {
    const { audit, profiles } = setUp({ ...NO_SANDBOX_LIMITS, allowNetwork: false, allowHomeFolder: false });
    expect(() => profiles.widen('Files', { kind: 'read', path: 'relative/path' })).toThrow(/not an absolute path/);
    expect(() => profiles.widen('Files', { kind: 'connect', host: 'example.com' })).toThrow(/host:port/);
    expect(() => profiles.widen('Files', { kind: 'connect', host: 'example.com:443' })).toThrow(
      expect.objectContaining({ code: 'locked' }),
    );
    expect(() => profiles.widen('Files', { kind: 'read', path: path.join(os.homedir(), '.ssh') })).toThrow(
      expect.objectContaining({ code: 'locked' }),
    );
    expect(() => profiles.widen('Files', { kind: 'write', path: '/' })).toThrow(
      expect.objectContaining({ code: 'locked' }),
    );
    expect(audit.log.query({ kind: 'policy' }).entries).toEqual([]);
    const locked = setUp({ ...NO_SANDBOX_LIMITS, lockProfiles: true });
    expect(() => locked.profiles.widen('Files', { kind: 'read', path: '/opt' })).toThrow(
      expect.objectContaining({ code: 'locked' }),
    );
  });

  it('a remote server has no profile to edit', () => {
    const { test, profiles } = setUp();
    test.config.add('remote', { url: 'https://example.com/mcp' });
    expect(profiles.view('remote')).toMatchObject({ kind: 'remote' });
    expect(() => profiles.widen('remote', { kind: 'read', path: '/opt' })).toThrow(/remote/);
  });
});

const suite = needsSandbox('blocks in the audit log (real bubblewrap)');
// Skipped where no bubblewrap runs, with the sandbox probe's reason in its title (testing/skip-reason.ts); a skip is
// listed by npm test with that reason and never counted as passed.
describe.skipIf(suite.skipped)(suite.title, () => {
  it('a row per block, with the server, the path or host, and the call it happened in', async () => {
    const audit = openTempAuditLog();
    logs.push(audit);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-outside-'));
    fs.writeFileSync(path.join(outside, 'id_rsa'), 'KEY');
    const listener = net.createServer((socket) => socket.end('x'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as net.AddressInfo).port;
    try {
      const targets = {
        read: path.join(outside, 'id_rsa'),
        write: path.join(outside, 'w'),
        env: 'AIWB_NOT_GIVEN',
        port,
      };
      // As services.ts wires it: the host's blocks go to the profile service, built after the host.
      const late: { profiles?: ReturnType<typeof createSandboxProfileService> } = {};
      const test = createTestHost(
        { Hostile: { command: process.execPath, args: [HOSTILE_SERVER, JSON.stringify(targets)] } },
        { onBlock: (name, block, call) => late.profiles?.recordBlock(name, block, call) },
      );
      late.profiles = createSandboxProfileService({
        config: test.config,
        audit: audit.log,
        limits: undefined,
        dataDir: test.dir,
        actor: 'user',
      });
      profileServices.push(late.profiles);
      await test.waitFor('Hostile', (server) => server.status.toolCount === 1, 30_000);
      await test.host.callTool({ serverName: 'Hostile', toolName: 'escape', args: {}, chatId: 'chat-1' });
      // A burst of blocks is recorded once it has been quiet for a moment (one row with its count): the call's too.
      await expect
        .poll(
          () =>
            audit.log
              .query({ decision: 'auto_deny' })
              .entries.some((row) => row.chatId === 'chat-1' && (row.args as { call?: string }).call === 'escape'),
          { timeout: 15_000 },
        )
        .toBe(true);
      const rows = audit.log.query({ decision: 'auto_deny' }).entries;
      expect(rows.every((row) => row.serverName === 'Hostile' && row.decidedBy === 'sandbox')).toBe(true);
      const targetsSeen = rows.map((row) => `${row.toolName} ${String((row.args as { target?: string }).target)}`);
      expect(targetsSeen).toEqual(
        expect.arrayContaining([
          `sandbox/read ${targets.read}`,
          `sandbox/write ${targets.write}`,
          `sandbox/connect 127.0.0.1:${port}`,
        ]),
      );
      // The blocks of the call are put with it (one call ran): its chat and tool.
      expect(rows.some((row) => row.chatId === 'chat-1' && (row.args as { call?: string }).call === 'escape')).toBe(
        true,
      );
    } finally {
      listener.close();
      fs.rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);
});
