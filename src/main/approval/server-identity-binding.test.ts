import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../shared/tool';
import { createServices, freedNameNotice, type Services } from '../services';
import { openOAuthCredentials } from '../mcp/oauth/oauth-credentials';
import { openDatabase } from '../storage/database';
import { createChatApprovalStore } from './chat-approval-store';
import { rememberUpdate } from './policy/remember';
import { makeTool, recordingAuditLog } from './testing/fixtures';

/**
 * A server is what it runs, not what it is called (docs/user/approvals.md, "A server's identity"): what grants or
 * limits a server is bound to its identity, follows a rename, goes with a removal, and never allows another server.
 */
const dirs: string[] = [];
const open: Services[] = [];
afterEach(() => {
  for (const services of open.splice(0)) services.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function servicesWith(managed?: unknown, dataDir?: string): Services {
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-identity-'));
  if (!dataDir) dirs.push(dir);
  let managedPolicyFile: string | null = null;
  if (managed !== undefined) {
    managedPolicyFile = path.join(dir, 'managed.json');
    fs.writeFileSync(managedPolicyFile, JSON.stringify(managed));
  }
  const tools = new Map<string, ToolDefinition>();
  const services = createServices({
    dataDir: dir,
    host: 'cli',
    version: '0',
    managedPolicyFile,
    audit: recordingAuditLog(),
    tools: {
      find: (server, tool) =>
        tools.get(`${server}/${tool}`) ??
        (tools.set(`${server}/${tool}`, makeTool(server, tool)), tools.get(`${server}/${tool}`)),
    },
  });
  open.push(services);
  return services;
}

describe('settings bound to a server identity', () => {
  it('a server removed and added again under its name with another command asks: its old auto-approve is gone', () => {
    const services = servicesWith();
    services.mcpServers.add('GitHub', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] });
    services.approvals.policy.update({ servers: { GitHub: { autoApprove: true } } });
    expect(services.approvals.gate.explain({ server: 'GitHub', tool: 'anything' })).toMatchObject({ outcome: 'allow' });
    services.mcpServers.remove('GitHub');
    services.mcpServers.add('GitHub', { command: '/some/other/server' });
    const explained = services.approvals.gate.explain({ server: 'GitHub', tool: 'anything' });
    expect(explained.outcome).toBe('ask');
    expect(services.approvals.policy.view().policy.servers).toEqual({});
  });

  it('a rename keeps the settings, rules and chat grants; a removal drops them', () => {
    const services = servicesWith();
    services.mcpServers.add('Notes', { command: 'notes-server' });
    services.approvals.policy.update({
      tools: { Notes: { read: 'auto-approve' } },
      rules: {
        add: [
          { id: 'notes-write', effect: 'allow', server: 'Notes', tool: 'write' },
          { id: 'all-ask', effect: 'ask', server: '*', tool: 'danger' },
        ],
      },
    });
    const chat = services.chats.create();
    const db = openDatabase(services.databaseFile);
    try {
      createChatApprovalStore(db).grant({
        chatId: chat.id,
        serverName: 'Notes',
        toolName: 'read',
        definitionHash: 'h',
        grantedAt: 1,
      });
    } finally {
      db.close();
    }
    services.mcpServers.edit({ name: 'Notes', rename: 'Journal' });
    expect(services.approvals.chats.grants(chat.id).map((grant) => grant.serverName)).toEqual(['Journal']);
    expect(services.approvals.gate.explain({ server: 'Journal', tool: 'read' })).toMatchObject({
      outcome: 'allow',
      source: { kind: 'tool-setting' },
    });
    expect(services.approvals.gate.explain({ server: 'Journal', tool: 'write' })).toMatchObject({
      outcome: 'allow',
      source: { kind: 'allow-rule' },
    });
    expect(services.approvals.gate.explain({ server: 'Notes', tool: 'read' }).outcome).toBe('ask');
    services.mcpServers.remove('Journal');
    expect(services.approvals.chats.grants(chat.id)).toEqual([]);
    const policy = services.approvals.policy.view().policy;
    expect(policy.tools).toEqual({});
    // A rule that names no one server stays.
    expect(policy.rules.map((rule) => rule.id)).toEqual(['all-ask']);
  });

  it('a server added under a name that still holds settings (removed outside the app) starts with nothing, and is told so', () => {
    const services = servicesWith();
    services.approvals.policy.update({ servers: { GitHub: { autoApprove: true } } });
    const notices: unknown[] = [];
    services.events.subscribe((event, payload) => {
      if (event === 'mcp.onDidChangeServer' && (payload as { kind: string }).kind === 'notice') notices.push(payload);
    });
    services.mcpServers.add('GitHub', { command: '/some/other/server' });
    expect(services.approvals.gate.explain({ server: 'GitHub', tool: 'anything' }).outcome).toBe('ask');
    expect(notices).toEqual([{ kind: 'notice', name: 'GitHub', message: freedNameNotice('GitHub') }]);
  });

  it('a changed launch spec asks again and says what changed, until the person accepts what it runs now', () => {
    const services = servicesWith();
    services.mcpServers.add('GitHub', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] });
    services.approvals.policy.update({ servers: { GitHub: { autoApprove: true } } });
    services.mcpServers.edit({ name: 'GitHub', command: 'npx', args: ['-y', 'evil-github'] });
    const explained = services.approvals.gate.explain({ server: 'GitHub', tool: 'anything' });
    expect(explained.outcome).toBe('ask');
    expect(explained.identityChanged).toEqual({
      previous: 'npx -y @modelcontextprotocol/server-github — package @modelcontextprotocol/server-github',
      current: 'npx -y evil-github — package evil-github',
    });
    expect(services.mcpServers.get('GitHub').identityChanged?.current).toContain('evil-github');
    services.mcpServers.edit({ name: 'GitHub', acceptIdentity: true });
    expect(services.approvals.gate.explain({ server: 'GitHub', tool: 'anything' }).outcome).toBe('allow');
    expect(services.mcpServers.get('GitHub').identityChanged).toBeUndefined();
  });
});

describe("a server's OAuth sign-in is bound to what it is", () => {
  const tokens = { access_token: 'token-of-remote', token_type: 'Bearer' };
  const signIn = (services: Services, name: string, url: string) => openOAuthCredentials(services.secrets, name, url);

  it('a rename keeps it; another server under the freed name, or the name pointed elsewhere, does not get it', () => {
    const services = servicesWith();
    services.mcpServers.add('Remote', { url: 'https://mcp.example.com/mcp' });
    signIn(services, 'Remote', 'https://mcp.example.com/mcp').saveTokens(tokens);
    services.mcpServers.edit({ name: 'Remote', rename: 'Work' });
    expect(signIn(services, 'Work', 'https://mcp.example.com/mcp').tokens()?.access_token).toBe('token-of-remote');
    // The query is not part of what a server is: the same resource keeps its sign-in.
    services.mcpServers.edit({ name: 'Work', url: 'https://mcp.example.com/mcp?tenant=a' });
    expect(signIn(services, 'Work', 'https://mcp.example.com/mcp?tenant=a').tokens()?.access_token).toBe(
      'token-of-remote',
    );
    // Another origin or path under the same name is another server.
    expect(signIn(services, 'Work', 'https://evil.example/mcp').tokens()).toBeUndefined();
    expect(signIn(services, 'Work', 'https://mcp.example.com/other').tokens()).toBeUndefined();
    // Nothing is left under the old name, and a removal takes the sign-in with it.
    expect(signIn(services, 'Remote', 'https://mcp.example.com/mcp').tokens()).toBeUndefined();
    services.mcpServers.remove('Work');
    services.mcpServers.add('Work', { url: 'https://evil.example/mcp' });
    expect(signIn(services, 'Work', 'https://evil.example/mcp').tokens()).toBeUndefined();
    expect(services.secrets.keys('mcp.Work.')).toEqual([]);
  });
});

describe('a command changed by hand in settings.json', () => {
  /** Changes a server's entry in settings.json as a text editor (or another program) would, without the app. */
  const editByHand = (services: Services, name: string, change: Record<string, unknown>): void => {
    const file = services.settings.file;
    const document = JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: Record<string, object> };
    document.mcpServers[name] = { ...document.mcpServers[name], ...change };
    fs.writeFileSync(file, JSON.stringify(document, null, 2));
  };

  it('while the app is closed is a changed launch spec at the next start: nothing allows it until accepted', () => {
    const services = servicesWith();
    services.mcpServers.add('GitHub', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] });
    services.approvals.policy.update({ servers: { GitHub: { autoApprove: true } } });
    expect(services.approvals.gate.explain({ server: 'GitHub', tool: 'anything' }).outcome).toBe('allow');
    const dir = services.dataDir;
    services.close();
    open.splice(open.indexOf(services), 1);
    editByHand(services, 'GitHub', { args: ['-y', 'evil-github'] });
    const again = servicesWith(undefined, dir);
    const explained = again.approvals.gate.explain({ server: 'GitHub', tool: 'anything' });
    expect(explained.outcome).toBe('ask');
    expect(explained.identityChanged).toEqual({
      previous: 'npx -y @modelcontextprotocol/server-github — package @modelcontextprotocol/server-github',
      current: 'npx -y evil-github — package evil-github',
    });
    expect(again.mcpServers.get('GitHub').identityChanged?.current).toContain('evil-github');
    // An edit through the app of something else keeps the record: it still asks.
    again.mcpServers.edit({ name: 'GitHub', trusted: true });
    expect(again.approvals.gate.explain({ server: 'GitHub', tool: 'anything' }).outcome).toBe('ask');
    again.mcpServers.edit({ name: 'GitHub', acceptIdentity: true });
    expect(again.approvals.gate.explain({ server: 'GitHub', tool: 'anything' }).outcome).toBe('allow');
  });

  it('while the app runs is a changed launch spec as soon as the app reads the file again', () => {
    const services = servicesWith();
    services.mcpServers.add('Notes', { command: 'notes-server' });
    services.approvals.policy.update({ servers: { Notes: { autoApprove: true } } });
    editByHand(services, 'Notes', { command: '/tmp/evil-server' });
    // Any change the app writes reads the file as it is on disk first (settings-store.ts).
    services.mcpServers.add('Other', { command: 'other-server' });
    expect(services.approvals.gate.explain({ server: 'Notes', tool: 'anything' })).toMatchObject({
      outcome: 'ask',
      identityChanged: { previous: 'notes-server', current: '/tmp/evil-server' },
    });
  });
});

describe("the organisation's rules and locks follow the server", () => {
  const managed = {
    rules: [{ id: 'no-evil', server: 'Evil', tool: '*' }],
    locked: { servers: { Evil: { autoApprove: false } } },
  };

  it('a deny rule and lock by name survive a rename and the same command added under another name', () => {
    const services = servicesWith(managed);
    services.mcpServers.add('Evil', { command: '/opt/evil/server', args: ['--serve'] });
    expect(services.approvals.gate.explain({ server: 'Evil', tool: 'x' })).toMatchObject({
      outcome: 'deny',
      source: { kind: 'managed-deny-rule' },
    });
    services.mcpServers.edit({ name: 'Evil', rename: 'Evil3' });
    expect(services.approvals.gate.explain({ server: 'Evil3', tool: 'x' })).toMatchObject({
      outcome: 'deny',
      source: { kind: 'managed-deny-rule' },
    });
    services.mcpServers.add('Twin', { command: '/opt/evil/server', args: ['--serve'] });
    expect(services.approvals.gate.explain({ server: 'Twin', tool: 'x' })).toMatchObject({
      outcome: 'deny',
      source: { kind: 'managed-deny-rule' },
    });
    // The lock follows too: the person's own auto-approve of the renamed server gives way to it.
    services.approvals.policy.update({ servers: { Evil3: { autoApprove: true } } });
    expect(services.approvals.policy.compiled().serverSettings('Evil3')?.autoApprove).toBe(false);
    // Another server is not caught by a name it never had.
    services.mcpServers.add('Other', { command: '/opt/other/server' });
    expect(services.approvals.gate.explain({ server: 'Other', tool: 'x' }).outcome).toBe('ask');
  });

  it('a lock by what a server runs holds under every name: after a rename, and for the same command removed and added under another', () => {
    const services = servicesWith({
      locked: {
        serversByIdentity: [
          { serverIdentity: { command: '/opt/evil/*' }, autoApprove: false, tools: { wipe: 'always-ask' } },
        ],
      },
    });
    services.mcpServers.add('Evil', { command: '/opt/evil/server', args: ['--serve'] });
    services.approvals.policy.update({
      servers: { Evil: { autoApprove: true } },
      tools: { Evil: { wipe: 'auto-approve' } },
    });
    const locked = (name: string) => ({
      server: services.approvals.policy.compiled().serverSettings(name)?.autoApprove,
      wipe: services.approvals.policy.compiled().toolSetting(name, 'wipe'),
    });
    expect(locked('Evil')).toEqual({ server: false, wipe: 'always-ask' });
    services.mcpServers.edit({ name: 'Evil', rename: 'Renamed' });
    expect(locked('Renamed')).toEqual({ server: false, wipe: 'always-ask' });
    // Removed, and the same command added under a name it never had: the lock by name would be gone; this one is not.
    services.mcpServers.remove('Renamed');
    services.mcpServers.add('Fresh', { command: '/opt/evil/server', args: ['--other'] });
    services.approvals.policy.update({
      servers: { Fresh: { autoApprove: true } },
      tools: { Fresh: { wipe: 'auto-approve' } },
    });
    expect(locked('Fresh')).toEqual({ server: false, wipe: 'always-ask' });
    expect(services.approvals.gate.explain({ server: 'Fresh', tool: 'wipe' }).outcome).toBe('ask');
    // A server that runs something else is not locked.
    services.mcpServers.add('Other', { command: '/opt/other/server' });
    services.approvals.policy.update({ servers: { Other: { autoApprove: true } } });
    expect(services.approvals.gate.explain({ server: 'Other', tool: 'wipe' }).outcome).toBe('allow');
  });

  it('a rule can name a server by its command, its package or its URL', () => {
    const services = servicesWith({
      rules: [
        { id: 'by-command', server: '*', tool: '*', serverIdentity: { command: 'evil-*' } },
        { id: 'by-package', server: '*', tool: '*', serverIdentity: { package: '@evil/*' } },
        { id: 'by-url', server: '*', tool: '*', serverIdentity: { url: 'https://evil.example/**' } },
      ],
    });
    services.mcpServers.add('A', { command: '/usr/local/bin/evil-server' });
    services.mcpServers.add('B', { command: 'npx', args: ['-y', '@evil/mcp@1.2.3'] });
    services.mcpServers.add('C', { url: 'https://evil.example/mcp' });
    services.mcpServers.add('D', { command: 'npx', args: ['-y', '@good/mcp'] });
    expect(services.approvals.gate.explain({ server: 'A', tool: 'x' })).toMatchObject({
      outcome: 'deny',
      source: { ruleId: 'by-command' },
    });
    expect(services.approvals.gate.explain({ server: 'B', tool: 'x' })).toMatchObject({
      outcome: 'deny',
      source: { ruleId: 'by-package' },
    });
    expect(services.approvals.gate.explain({ server: 'C', tool: 'x' })).toMatchObject({
      outcome: 'deny',
      source: { ruleId: 'by-url' },
    });
    expect(services.approvals.gate.explain({ server: 'D', tool: 'x' }).outcome).toBe('ask');
  });
});

describe('names chosen by a server are literal in the rules built from them', () => {
  it("a remembered rule for the tool `write_*` allows that tool only, not Evil's write_anything", () => {
    const services = servicesWith();
    services.mcpServers.add('Files2', { command: 'files-server' });
    services.mcpServers.add('Evil', { command: 'evil-server' });
    services.approvals.policy.update(
      rememberUpdate(
        { serverName: 'Files2', toolName: 'write_*', args: { path: 'a' } },
        { kind: 'rule', id: 'remembered', args: [{ pointer: '/path', match: 'equals', value: 'a' }] },
      ),
    );
    expect(services.approvals.gate.explain({ server: 'Files2', tool: 'write_*', args: { path: 'a' } }).outcome).toBe(
      'allow',
    );
    expect(
      services.approvals.gate.explain({ server: 'Files2', tool: 'write_anything', args: { path: 'a' } }).outcome,
    ).toBe('ask');
    expect(
      services.approvals.gate.explain({ server: 'Evil', tool: 'write_anything', args: { path: 'a' } }).outcome,
    ).toBe('ask');
  });
});

describe('settings.json changed by hand while the app runs (docs/user/data.md, "Editing settings.json")', () => {
  /** The next `settings.onDidReload` of these services (a guard of 5 s turns a missed change into a failure). */
  const nextReload = (services: Services): Promise<{ kind: string; message?: string }> =>
    new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error('settings.json was not read again')), 5000);
      const off = services.events.subscribe((event, payload) => {
        if (event !== 'settings.onDidReload') return;
        clearTimeout(guard);
        off();
        resolve(payload as { kind: string; message?: string });
      });
    });
  const readFile = (services: Services) =>
    JSON.parse(fs.readFileSync(services.settings.file, 'utf8')) as {
      mcpServers: Record<string, { command?: string; identity?: Record<string, unknown> }>;
    };
  const writeFile = (services: Services, document: object) =>
    fs.writeFileSync(services.settings.file, JSON.stringify(document, null, 2));

  it('a changed command asks at once, without any other write, and says what changed', async () => {
    const services = servicesWith();
    services.settingsWatch.start();
    services.mcpServers.add('Notes', { command: 'notes-server' });
    services.approvals.policy.update({ servers: { Notes: { autoApprove: true } } });
    expect(services.approvals.gate.explain({ server: 'Notes', tool: 'anything' }).outcome).toBe('allow');
    const reloaded = nextReload(services);
    const document = readFile(services);
    (document.mcpServers.Notes as { command: string }).command = '/tmp/evil-server';
    writeFile(services, document);
    expect(await reloaded).toMatchObject({ kind: 'reloaded' });
    expect(services.mcpServers.get('Notes')).toMatchObject({ command: '/tmp/evil-server' });
    expect(services.approvals.gate.explain({ server: 'Notes', tool: 'anything' })).toMatchObject({
      outcome: 'ask',
      identityChanged: { previous: 'notes-server', current: '/tmp/evil-server' },
    });
  });

  it('a corrupt or invalid file is refused with a clear error, and the last good settings stay in force', async () => {
    const services = servicesWith();
    services.settingsWatch.start();
    services.mcpServers.add('Notes', { command: 'notes-server' });
    services.approvals.policy.update({
      rules: { add: [{ id: 'no-wipe', effect: 'deny', server: 'Notes', tool: 'wipe' }] },
    });
    const good = fs.readFileSync(services.settings.file, 'utf8');
    let failed = nextReload(services);
    // Half-written: the deny rule and the server's record would be lost if this were taken as "no settings".
    fs.writeFileSync(services.settings.file, good.slice(0, good.length / 2));
    const problem = await failed;
    expect(problem.kind).toBe('invalid');
    expect(problem.message).toMatch(/is not valid JSON .*The settings in force are the last good ones\.$/);
    expect(services.approvals.gate.explain({ server: 'Notes', tool: 'wipe' })).toMatchObject({ outcome: 'deny' });
    expect(services.mcpServers.get('Notes')).toMatchObject({ command: 'notes-server' });
    // Valid JSON whose server entry is invalid: nothing of the file applies, not the rule removed beside it either.
    failed = nextReload(services);
    const document = JSON.parse(good) as { mcpServers: Record<string, unknown>; approvals: { rules: unknown[] } };
    writeFile(services, {
      ...document,
      approvals: { ...document.approvals, rules: [] },
      mcpServers: { Notes: { args: [] } },
    });
    expect((await failed).message).toContain('mcpServers.Notes');
    expect(services.approvals.gate.explain({ server: 'Notes', tool: 'wipe' })).toMatchObject({ outcome: 'deny' });
    expect(services.mcpServers.list().map((server) => server.name)).toContain('Notes');
    // The person's file was not overwritten; the next good save is taken.
    expect(readFile(services).mcpServers.Notes).toEqual({ args: [] });
    const fixed = nextReload(services);
    fs.writeFileSync(services.settings.file, good);
    expect(await fixed).toMatchObject({ kind: 'reloaded' });
  });
});

describe('a server added outside the app (docs/user/approvals.md, "A server added outside the app")', () => {
  const handWritten = (dir: string, document: object): void =>
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ version: 2, ...document }, null, 2));
  const freshDir = (): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-identity-'));
    dirs.push(dir);
    return dir;
  };
  const onDisk = (services: Services) =>
    (
      JSON.parse(fs.readFileSync(services.settings.file, 'utf8')) as {
        mcpServers: Record<string, { identity?: object }>;
      }
    ).mcpServers;

  it('gets a record the first time it loads, and nothing given to it allows a call until the person accepts it once', () => {
    const dir = freshDir();
    handWritten(dir, {
      mcpServers: { Notes: { command: 'notes-server', trusted: true } },
      approvals: { servers: { Notes: { autoApprove: true } }, tools: { Notes: { read: 'auto-approve' } } },
    });
    const services = servicesWith(undefined, dir);
    expect(onDisk(services).Notes?.identity).toEqual({
      key: 'stdio:{"args":[],"command":"notes-server"}',
      description: 'notes-server',
      since: expect.any(String),
      accepted: false,
    });
    const explained = services.approvals.gate.explain({ server: 'Notes', tool: 'read' });
    expect(explained.outcome).toBe('ask');
    expect(explained.identityChanged).toEqual({
      previous: 'not recorded: it was added to settings.json outside AI Workbench',
      current: 'notes-server',
      unrecorded: true,
    });
    expect(services.approvals.policy.compiled().serverTrusted('Notes')).toBe(false);
    expect(services.mcpServers.get('Notes').identityChanged?.unrecorded).toBe(true);
    // An edit through the app of something else does not accept it; a restart does not either.
    services.mcpServers.edit({ name: 'Notes', displayName: 'My notes' });
    expect(services.approvals.gate.explain({ server: 'Notes', tool: 'read' }).outcome).toBe('ask');
    services.close();
    open.splice(open.indexOf(services), 1);
    const again = servicesWith(undefined, dir);
    expect(again.approvals.gate.explain({ server: 'Notes', tool: 'read' }).outcome).toBe('ask');
    // Asked once: accepted, it keeps what it was given, and the record says since when.
    again.mcpServers.edit({ name: 'Notes', acceptIdentity: true });
    expect(again.approvals.gate.explain({ server: 'Notes', tool: 'read' })).toMatchObject({ outcome: 'allow' });
    expect(again.mcpServers.get('Notes').identityChanged).toBeUndefined();
    expect(onDisk(again).Notes?.identity).toEqual({
      key: 'stdio:{"args":[],"command":"notes-server"}',
      description: 'notes-server',
      since: expect.any(String),
    });
  });

  it('a record deleted by hand together with a changed command does not carry the old approvals over', () => {
    const dir = freshDir();
    const services = servicesWith(undefined, dir);
    services.mcpServers.add('GitHub', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] });
    services.approvals.policy.update({ servers: { GitHub: { autoApprove: true } } });
    services.close();
    open.splice(open.indexOf(services), 1);
    const file = path.join(dir, 'settings.json');
    const document = JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: Record<string, object> };
    document.mcpServers.GitHub = { command: 'npx', args: ['-y', 'evil-github'] };
    fs.writeFileSync(file, JSON.stringify(document));
    const again = servicesWith(undefined, dir);
    expect(again.approvals.gate.explain({ server: 'GitHub', tool: 'anything' })).toMatchObject({
      outcome: 'ask',
      identityChanged: { unrecorded: true, current: 'npx -y evil-github — package evil-github' },
    });
  });

  it('added by hand while the app runs: recorded when the file is read again, and asks', async () => {
    const services = servicesWith();
    services.settingsWatch.start();
    services.approvals.policy.update({ servers: { Pasted: { autoApprove: true } } });
    const reloaded = new Promise<void>((resolve) => {
      const off = services.mcpServers.onDidChange((servers) => {
        if (!servers.Pasted?.identity) return;
        off();
        resolve();
      });
    });
    const file = services.settings.file;
    const document = JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers?: Record<string, object> };
    fs.writeFileSync(
      file,
      JSON.stringify({ ...document, mcpServers: { ...document.mcpServers, Pasted: { command: 'pasted-server' } } }),
    );
    await reloaded;
    expect(onDisk(services).Pasted?.identity).toMatchObject({ accepted: false, description: 'pasted-server' });
    expect(services.approvals.gate.explain({ server: 'Pasted', tool: 'x' })).toMatchObject({
      outcome: 'ask',
      identityChanged: { unrecorded: true },
    });
  });

  it("the app's own servers (a fresh install's Files) are recorded: nothing to accept", () => {
    const services = servicesWith();
    expect(services.mcpServers.get('Files').identityChanged).toBeUndefined();
    services.mcpServers.edit({ name: 'Files', trusted: true });
    expect(services.approvals.policy.compiled().serverTrusted('Files')).toBe(true);
  });
});
