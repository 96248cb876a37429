/**
 * A person lets one server run unconfined (docs/user/sandbox.md#unconfined): recorded in the real audit log before it
 * applies, refused where the organisation requires containment or locks profiles, bound to the server's name and what
 * it runs (a renamed or re-pointed server is contained again), and the server is marked Not contained. Real servers,
 * real settings files; with bubblewrap or without it (then a server nobody allowed does not start at all).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openTempAuditLog, type TempAuditLog } from '../audit/audit-test-support';
import { createTestHost, disposeTestHosts, fixtureServer } from '../mcp/test-fixtures/harness';
import { ContainmentError, planSpawn } from '../mcp/sandbox';
import { sandboxAvailability } from '../mcp/sandbox/bwrap';
import { NO_SANDBOX_LIMITS } from '../mcp/sandbox/limits';
import { launchIdentity } from '../mcp/sandbox/unconfined';
import type { ManagedSandbox } from '../../shared/approval';
import { createSandboxProfileService } from './sandbox-profiles';

const logs: TempAuditLog[] = [];
afterEach(async () => {
  await disposeTestHosts();
  for (const log of logs.splice(0)) log.close();
});

const contained = sandboxAvailability().available;

/** A host that applies the person's settings alone: no organisation allowance, whatever the machine. */
function setUp(limits: ManagedSandbox = NO_SANDBOX_LIMITS) {
  const audit = openTempAuditLog();
  logs.push(audit);
  const test = createTestHost({ tool: fixtureServer() }, { start: false, options: { sandbox: { limits } } });
  const profiles = createSandboxProfileService({
    config: test.config,
    audit: audit.log,
    limits,
    dataDir: test.dir,
    actor: 'user',
  });
  return { audit, test, profiles };
}

const policyRows = (audit: TempAuditLog): string[] =>
  audit.log.query({ kind: 'policy' }).entries.map((row) => row.decidedBy ?? '');

describe('running one server unconfined', () => {
  it('is recorded in the audit log, bound to the name and what it runs, and the server starts marked Not contained', async () => {
    const { audit, test, profiles } = setUp();
    profiles.setUnconfined('TOOL', true);
    const stored = test.config.sandboxSettings('tool').settings.unconfined;
    expect(stored).toMatchObject({ name: 'tool', description: expect.stringContaining('misbehaving-server.ts') });
    expect(stored?.identity).toBe(test.config.get('tool').identity?.key);
    expect(policyRows(audit)).toEqual([
      expect.stringMatching(
        /^Sandbox: tool may run unconfined \(Not contained: with all of your rights\) while it runs /,
      ),
    ]);
    expect(profiles.view('tool')).toMatchObject({
      kind: 'not-contained',
      reason: 'You allowed it to run unconfined.',
      unconfined: { applies: true },
    });
    // Allowing again changes nothing and records nothing.
    profiles.setUnconfined('tool', true);
    expect(policyRows(audit)).toHaveLength(1);

    test.host.start();
    const ready = await test.waitFor('tool', 'ready');
    expect(ready.status.containment).toBe('not-contained');
    expect(test.host.logs('tool').lines.map((line) => line.text)).toContain(
      'Not contained: you allowed it to run unconfined. It runs with all of your rights.',
    );
  });

  it('does not follow a rename: under its new name the server is contained again (or, with no sandbox, does not start)', async () => {
    const { test, profiles } = setUp();
    profiles.setUnconfined('tool', true);
    test.config.edit({ name: 'tool', rename: 'renamed' });
    expect(profiles.view('renamed')).toMatchObject({
      kind: contained ? 'contained' : 'not-contained',
      unconfined: { applies: false, note: expect.stringContaining('given to the server named "tool"') },
    });
    test.host.start();
    if (contained) {
      const ready = await test.waitFor('renamed', 'ready');
      expect(ready.status.containment).toBe('contained');
    } else {
      const failed = await test.waitFor('renamed', 'error');
      expect(failed.status.message).toMatch(/starts only if you allow it to run unconfined/);
    }
    expect(test.host.logs('renamed').lines.map((line) => line.text)).toContainEqual(
      expect.stringMatching(
        /^Your allowance to run it unconfined does not apply: it was given to the server named "tool"/,
      ),
    );
  });

  it('does not follow a change of what it runs: a re-pointed server is contained again', async () => {
    const { test, profiles } = setUp();
    profiles.setUnconfined('tool', true);
    const before = test.config.launchConfig('tool');
    if (before.kind !== 'stdio') throw new Error('a stdio server');
    test.config.edit({ name: 'tool', args: [...before.args, '--another'], acceptIdentity: true });
    expect(profiles.view('tool').unconfined).toMatchObject({
      applies: false,
      note: expect.stringContaining('it now runs something else'),
    });
    test.host.start();
    if (contained) expect((await test.waitFor('tool', 'ready')).status.containment).toBe('contained');
    else expect((await test.waitFor('tool', 'error')).status.message).toMatch(/allow it to run unconfined/);
  });

  it('is taken back, audited; taking back what was never given says so', () => {
    const { audit, test, profiles } = setUp();
    expect(() => profiles.setUnconfined('tool', false)).toThrow(/is not allowed to run unconfined/);
    profiles.setUnconfined('tool', true);
    profiles.setUnconfined('tool', false);
    expect(test.config.sandboxSettings('tool').settings).toEqual({});
    expect(policyRows(audit)).toContain('Sandbox: tool runs contained again');
    expect(profiles.view('tool').unconfined).toBeNull();
  });

  it.each([
    [
      'requires containment',
      { ...NO_SANDBOX_LIMITS, requireContainment: true },
      /requires every server to be contained/,
    ],
    ['locks profiles', { ...NO_SANDBOX_LIMITS, lockProfiles: true }, /locks the servers/],
  ])('is refused where the organisation %s: nothing recorded, nothing stored', (_, limits, message) => {
    const { audit, test, profiles } = setUp(limits);
    expect(() => profiles.setUnconfined('tool', true)).toThrow(message);
    expect(policyRows(audit)).toEqual([]);
    expect(test.config.sandboxSettings('tool').settings).toEqual({});
  });

  it('an allowance already in settings.json does not apply where the organisation requires containment', async () => {
    const { test, profiles } = setUp();
    profiles.setUnconfined('tool', true);
    const limits = { ...NO_SANDBOX_LIMITS, requireContainment: true };
    const strict = createSandboxProfileService({
      config: test.config,
      audit: openTempAuditLog().log,
      limits,
      dataDir: test.dir,
      actor: 'user',
    });
    expect(strict.view('tool').unconfined).toMatchObject({ applies: false, note: expect.stringContaining('requires') });
    const launch = test.config.launchConfig('tool');
    if (launch.kind !== 'stdio') throw new Error('a stdio server');
    const lines: string[] = [];
    await expect(
      planSpawn(
        { ...launch },
        { command: launch.command as string, args: launch.args, env: {}, runtimeEnv: {} },
        {
          dataDir: test.dir,
          appRoot: test.dir,
          limits,
          availability: () => ({ available: false, reason: 'No sandbox here.' }),
        },
        process.execPath,
        (text) => lines.push(text),
      ),
    ).rejects.toThrow(ContainmentError);
    expect(lines).toContain(
      'Your organisation requires every server to be contained: your allowance to run it unconfined does not apply.',
    );
  });

  it('an unbound "allowUnconfined" written by hand does not apply, and the log says how to allow it', async () => {
    const { test } = setUp();
    const launch = test.config.launchConfig('tool');
    if (launch.kind !== 'stdio') throw new Error('a stdio server');
    const lines: string[] = [];
    await expect(
      planSpawn(
        { ...launch, sandbox: { allowUnconfined: true } },
        { command: launch.command as string, args: launch.args, env: {}, runtimeEnv: {} },
        {
          dataDir: test.dir,
          appRoot: test.dir,
          limits: NO_SANDBOX_LIMITS,
          availability: () => ({ available: false, reason: 'No sandbox here.' }),
        },
        process.execPath,
        (text) => lines.push(text),
      ),
    ).rejects.toThrow(/--allow-unconfined/);
    expect(lines.join('\n')).toMatch(/"allowUnconfined", which names no server/);
    // The identity a launch is checked against is the one its settings record.
    expect(launchIdentity(launch).key).toBe(test.config.get('tool').identity?.key);
  });
});
