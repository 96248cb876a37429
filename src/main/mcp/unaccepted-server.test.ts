import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerState } from '../../shared/mcp';
import { createServices, type Services } from '../services';
import { recordingAuditLog } from '../approval/testing/fixtures';

/**
 * What the person has not accepted does not run (docs/user/approvals.md, "A server's identity"): a server added to
 * settings.json by hand, or whose command was changed there, is not spawned until the person accepts what it runs.
 * The server is the real memory server from node_modules, started through `sh`, which first appends its process id
 * to a marker file: the file says whether, and which, processes ever started.
 */
const MEMORY_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

const dirs: string[] = [];
const open: Services[] = [];
afterEach(async () => {
  for (const services of open.splice(0)) {
    await services.mcp.stop();
    services.close();
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-unaccepted-'));
  dirs.push(dir);
  const file = path.join(dir, 'settings.json');
  fs.writeFileSync(file, JSON.stringify({ version: 2, mcpServers: {} }, null, 2));
  const services = createServices({
    dataDir: dir,
    host: 'cli',
    version: '0',
    managedPolicyFile: null,
    audit: recordingAuditLog(),
    mcp: { sandbox: false },
  });
  open.push(services);
  services.settingsWatch.start();
  services.mcp.start();
  const marker = path.join(dir, 'started');
  /** The process ids the server's command started, in order. */
  const started = (): number[] =>
    fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim().split('\n').map(Number) : [];
  /** The server's command: `sh` notes its process id, then becomes the memory server (same id). */
  const command = (tag: string) => ({
    command: '/bin/sh',
    args: ['-c', `echo $$ >> '${marker}'; exec "$0" "$@"`, process.execPath, MEMORY_SERVER, tag],
  });
  const document = () =>
    JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: Record<string, Record<string, unknown>> };
  /** Saves settings.json as an editor does, and waits until the app has read it again. */
  const editByHand = async (change: (servers: Record<string, Record<string, unknown>>) => void): Promise<void> => {
    const next = document();
    change(next.mcpServers);
    const reloaded = new Promise<void>((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error('settings.json was not read again')), 5000);
      const off = services.settingsWatch.onDidReload((reload) => {
        clearTimeout(guard);
        off();
        if (reload.kind === 'reloaded') resolve();
        else reject(new Error(reload.message));
      });
    });
    const temporary = path.join(dir, '.settings.json.tmp');
    fs.writeFileSync(temporary, JSON.stringify(next, null, 2));
    fs.renameSync(temporary, file);
    await reloaded;
  };
  /** Resolves once the server is in `state`; fails with the state it is in after 10 s. */
  const reaches = async (name: string, state: McpServerState): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (services.mcp.server(name).status.state !== state) {
      if (Date.now() > deadline)
        throw new Error(`${name} is ${JSON.stringify(services.mcp.server(name).status)}, not ${state}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** Whether the process is still there, after giving it up to 5 s to exit. */
  const aliveAfterStop = async (pid: number | undefined): Promise<boolean> => {
    const alive = (): boolean => {
      try {
        process.kill(pid ?? -1, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let tries = 0; alive() && tries < 250; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    return alive();
  };
  return { services, started, command, editByHand, reaches, aliveAfterStop };
}

describe('a server whose identity is not accepted is not started', () => {
  it('added by hand: no process while it waits; it starts once accepted', async () => {
    const { services, started, command, editByHand, reaches } = setUp();
    await editByHand((servers) => (servers.Memory = command('a')));
    await reaches('Memory', 'needs-acceptance');
    expect(services.mcp.server('Memory')).toMatchObject({
      identityChanged: { unrecorded: true },
      status: { message: expect.stringMatching(/^Waiting for you to accept what it runs/) },
    });
    // Nothing starts it behind the person's back: not a restart, not a reload of the same file.
    await services.mcp.restart('Memory');
    await reaches('Memory', 'needs-acceptance');
    expect(started()).toEqual([]);

    services.mcpServers.edit({ name: 'Memory', acceptIdentity: true });
    await reaches('Memory', 'ready');
    expect(started()).toHaveLength(1);
    expect(services.mcp.server('Memory').status.pid).toBe(started()[0]);
  });

  it('added by hand and refused (turned off): it never starts, not even when turned on again unaccepted', async () => {
    const { services, started, command, editByHand, reaches } = setUp();
    await editByHand((servers) => (servers.Memory = command('a')));
    await reaches('Memory', 'needs-acceptance');
    services.mcpServers.setEnabled('Memory', false);
    await reaches('Memory', 'stopped');
    services.mcpServers.setEnabled('Memory', true);
    await reaches('Memory', 'needs-acceptance');
    expect(started()).toEqual([]);
  });

  it('an accepted server whose command is changed by hand: the old process stops, the new one waits for acceptance', async () => {
    const { services, started, command, editByHand, reaches, aliveAfterStop } = setUp();
    services.mcpServers.add('Memory', command('a'));
    await reaches('Memory', 'ready');
    const [first] = started();
    expect(first).toBe(services.mcp.server('Memory').status.pid);

    await editByHand((servers) => {
      servers.Memory = { ...servers.Memory, args: command('b').args };
    });
    await reaches('Memory', 'needs-acceptance');
    expect(services.mcp.server('Memory').identityChanged).toMatchObject({ current: expect.stringContaining(' b') });
    expect(await aliveAfterStop(first)).toBe(false);
    expect(started()).toEqual([first]);

    services.mcpServers.edit({ name: 'Memory', acceptIdentity: true });
    await reaches('Memory', 'ready');
    expect(started()).toHaveLength(2);
    expect(services.mcp.server('Memory').status.pid).toBe(started()[1]);
  });

  it('its record edited by hand to not accepted (same command): what runs stops', async () => {
    const { services, started, command, editByHand, reaches, aliveAfterStop } = setUp();
    services.mcpServers.add('Memory', command('a'));
    await reaches('Memory', 'ready');
    const [first] = started();
    await editByHand((servers) => {
      delete servers.Memory?.identity;
    });
    await reaches('Memory', 'needs-acceptance');
    expect(await aliveAfterStop(first)).toBe(false);
    expect(started()).toEqual([first]);
  });
});
