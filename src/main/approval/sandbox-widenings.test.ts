/**
 * A request to widen a sandbox profile waits in the one pending store and is decided like any other request
 * (docs/user/sandbox.md#widening): nothing is granted until it is allowed; the decision and the grant are audit rows;
 * a second decision, a forbidden grant and an unknown request are refused with nothing applied. With the real
 * bubblewrap: a block seen on a call, widened from, lets exactly that access through.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTempAuditLog, type TempAuditLog } from '../audit/audit-test-support';
import { createTestHost, disposeTestHosts, HOSTILE_SERVER } from '../mcp/test-fixtures/harness';
import { needsSandbox } from '../testing/skip-reason';
import { NO_SANDBOX_LIMITS } from '../mcp/sandbox/limits';
import { grantForBlock } from '../../shared/sandbox';
import { createSandboxProfileService } from './sandbox-profiles';
import { createSandboxWideningService } from './sandbox-widenings';

const logs: TempAuditLog[] = [];
const profileServices: ReturnType<typeof createSandboxProfileService>[] = [];
afterEach(async () => {
  await disposeTestHosts();
  // As the app does when it closes (services.ts): the open bursts of blocks are recorded, and their timers cleared,
  // before the audit log closes; else a burst's timer could write to a closed database after the test.
  for (const profiles of profileServices.splice(0)) profiles.flushBlocks();
  for (const log of logs.splice(0)) log.close();
});

function setUp(
  servers: Parameters<typeof createTestHost>[0],
  limits = NO_SANDBOX_LIMITS,
  hostOptions: Parameters<typeof createTestHost>[1] = { start: false },
) {
  const audit = openTempAuditLog();
  logs.push(audit);
  const late: { profiles?: ReturnType<typeof createSandboxProfileService> } = {};
  const test = createTestHost(servers, {
    ...hostOptions,
    onBlock: (name, block, call) => late.profiles?.recordBlock(name, block, call),
  });
  const profiles = createSandboxProfileService({
    config: test.config,
    audit: audit.log,
    limits,
    dataDir: test.dir,
    actor: 'user',
  });
  late.profiles = profiles;
  profileServices.push(profiles);
  const widenings = createSandboxWideningService({ db: audit.db, audit: audit.log, profiles });
  return { audit, test, profiles, widenings };
}

const FILES = { Files: { package: '@modelcontextprotocol/server-filesystem' as const, args: [os.tmpdir()] } };

describe('a sandbox widening request', () => {
  it('waits in the pending store, grants nothing until allowed, and is recorded with its grant', () => {
    const { audit, test, widenings } = setUp(FILES);
    const request = widenings.request({ name: 'files', grant: { kind: 'read', path: '/opt/notes/' } });
    expect(request).toMatchObject({
      serverName: 'Files',
      grant: { kind: 'read', path: '/opt/notes' },
      description: 'Files may read /opt/notes (and everything in it)',
      status: 'pending',
      chatId: null,
    });
    // The same grant asked again is the same request.
    expect(widenings.request({ name: 'Files', grant: { kind: 'read', path: '/opt/notes' } }).id).toBe(request.id);
    const row = audit.db
      .prepare<[string], { kind: string; status: string }>(
        'SELECT kind, status FROM pending_requests WHERE request_id = ?',
      )
      .get(request.id);
    expect(row).toEqual({ kind: 'sandbox-widening', status: 'pending' });
    expect(test.config.sandboxSettings('Files').settings.read).toBeUndefined();
    expect(audit.log.query().entries).toEqual([]);

    const decided = widenings.decide(request.id, 'allow');
    expect(decided.status).toBe('allow_once');
    expect(test.config.sandboxSettings('Files').settings.read).toEqual(['/opt/notes']);
    const rows = audit.log.query().entries;
    expect(rows.find((entry) => entry.kind === 'decision')).toMatchObject({
      serverName: 'Files',
      toolName: 'sandbox/widen-read',
      toolCallId: request.id,
      decision: 'allow_once',
      actor: 'user',
    });
    expect(rows.find((entry) => entry.kind === 'policy')?.decidedBy).toBe(
      'Sandbox: Files may read /opt/notes (and everything in it)',
    );
    expect(widenings.waiting()).toEqual([]);
    // A second decision is refused and changes nothing.
    expect(() => widenings.decide(request.id, 'deny')).toThrow(/already decided/);
    expect(audit.log.query().entries).toHaveLength(rows.length);
  });

  it('denied, grants nothing and records the denial', () => {
    const { audit, test, widenings } = setUp(FILES);
    const request = widenings.request({ name: 'Files', grant: { kind: 'connect', host: 'api.example.com:443' } });
    expect(widenings.decide(request.id, 'deny').status).toBe('deny');
    expect(test.config.sandboxSettings('Files').settings.hosts).toBeUndefined();
    const rows = audit.log.query().entries;
    expect(rows.map((entry) => `${entry.kind} ${entry.decision} ${entry.toolName}`)).toEqual([
      'decision deny sandbox/widen-connect',
    ]);
  });

  it('is refused where the organisation forbids the grant, when asked and when allowed', () => {
    const forbidden = setUp(FILES, { ...NO_SANDBOX_LIMITS, allowNetwork: false });
    expect(() =>
      forbidden.widenings.request({ name: 'Files', grant: { kind: 'connect', host: 'api.example.com:443' } }),
    ).toThrow(expect.objectContaining({ code: 'locked' }));
    expect(forbidden.widenings.waiting()).toEqual([]);

    // A request made before the organisation locked the profiles is refused when allowed, with nothing recorded.
    const before = setUp(FILES);
    const request = before.widenings.request({ name: 'Files', grant: { kind: 'read', path: '/opt/notes' } });
    const locked = createSandboxWideningService({
      db: before.audit.db,
      audit: before.audit.log,
      profiles: createSandboxProfileService({
        config: before.test.config,
        audit: before.audit.log,
        limits: { ...NO_SANDBOX_LIMITS, lockProfiles: true },
        dataDir: before.test.dir,
        actor: 'user',
      }),
    });
    expect(() => locked.decide(request.id, 'allow')).toThrow(expect.objectContaining({ code: 'locked' }));
    expect(before.test.config.sandboxSettings('Files').settings.read).toBeUndefined();
    expect(before.audit.log.query().entries).toEqual([]);
    expect(locked.get(request.id)?.status).toBe('pending');
  });

  it('refuses bad input: a remote server, a relative path, an unknown chat, an unknown request', () => {
    const { test, widenings } = setUp(FILES);
    test.config.add('remote', { url: 'https://example.com/mcp' });
    expect(() => widenings.request({ name: 'remote', grant: { kind: 'read', path: '/opt' } })).toThrow(/remote/);
    expect(() => widenings.request({ name: 'Files', grant: { kind: 'read', path: 'opt' } })).toThrow(/absolute/);
    expect(() => widenings.request({ name: 'Files', grant: { kind: 'read', path: '/opt' }, chatId: 'nope' })).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(() => widenings.decide('widen-nope', 'allow')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(widenings.waiting()).toEqual([]);
  });
});

describe('the grant a block suggests', () => {
  it('is exactly the path, the folder a file was to be written in, the host or the variable', () => {
    expect(grantForBlock({ kind: 'read', target: '/home/me/.ssh/id_rsa' })).toEqual({
      kind: 'read',
      path: '/home/me/.ssh/id_rsa',
    });
    expect(grantForBlock({ kind: 'write', target: '/home/me/out/x.txt' })).toEqual({
      kind: 'write',
      path: '/home/me/out',
    });
    expect(grantForBlock({ kind: 'connect', target: '127.0.0.1:80' })).toEqual({
      kind: 'connect',
      host: '127.0.0.1:80',
    });
    expect(grantForBlock({ kind: 'env', target: 'TOKEN' })).toEqual({ kind: 'env', name: 'TOKEN' });
  });
});

const suite = needsSandbox('widened from a block (real bubblewrap)');
// Skipped where no bubblewrap runs, with the sandbox probe's reason in its title (testing/skip-reason.ts); a skip is
// listed by npm test with that reason and never counted as passed.
describe.skipIf(suite.skipped)(suite.title, () => {
  it('lets exactly the blocked read through after it is allowed, and nothing else', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-widen-'));
    fs.writeFileSync(path.join(outside, 'secret'), 'KEY');
    const listener = net.createServer((socket) => socket.end('hello\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const targets = {
        read: path.join(outside, 'secret'),
        write: path.join(outside, 'w'),
        env: 'AIWB_WIDEN_SECRET',
        port: (listener.address() as net.AddressInfo).port,
      };
      const { test, widenings } = setUp(
        { Hostile: { command: process.execPath, args: [HOSTILE_SERVER, JSON.stringify(targets)] } },
        NO_SANDBOX_LIMITS,
        {},
      );
      await test.waitFor('Hostile', (server) => server.status.toolCount === 1, 30_000);
      const first = await test.host.callTool({ serverName: 'Hostile', toolName: 'escape', args: {} });
      const block = first.sandboxBlocks?.find(
        (seen): seen is { kind: 'read'; target: string; text: string } =>
          'kind' in seen && seen.kind === 'read' && seen.target === targets.read,
      );
      if (!block) throw new Error(`no read block among ${JSON.stringify(first.sandboxBlocks)}`);
      const request = widenings.request({ name: 'Hostile', grant: grantForBlock(block) });
      // Waiting, nothing is granted: the server still cannot read it.
      expect(
        (
          (await test.host.callTool({ serverName: 'Hostile', toolName: 'escape', args: {} })).structuredContent as {
            now: { read: string };
          }
        ).now.read,
      ).not.toBe('ok');
      widenings.decide(request.id, 'allow');
      const now = async () =>
        (
          (await test.host.callTool({ serverName: 'Hostile', toolName: 'escape', args: {} }).catch(() => undefined))
            ?.structuredContent as { now: Record<string, string> } | undefined
        )?.now;
      await expect.poll(async () => (await now())?.read, { timeout: 30_000 }).toBe('ok');
      const after = await now();
      expect(after?.write).toMatch(/^(ENOENT|EROFS|EACCES|EPERM)$/);
      expect(after?.connect).toMatch(/^(ECONNREFUSED|ENETUNREACH|EPERM)$/);
      expect(after?.env).toBe('undefined');
    } finally {
      listener.close();
      fs.rmSync(outside, { recursive: true, force: true });
    }
  }, 90_000);
});
