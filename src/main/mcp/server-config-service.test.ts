import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileSecretStore, type SecretStore } from '../settings/secret-store';
import { openSettingsStore } from '../settings/settings-store';
import { createMcpServerConfigService, type McpServerConfigService } from './server-config-service';
import { SECRET_PLACEHOLDER, secretKey } from './server-settings';
import { organisationIdpLookup } from '../approval/organisation-idp-lookup';

let dir: string;
let settingsFile: string;
let secrets: SecretStore;
let config: McpServerConfigService;

function open(): McpServerConfigService {
  secrets = openFileSecretStore(path.join(dir, 'secrets.json'));
  return createMcpServerConfigService({
    settings: openSettingsStore(settingsFile),
    secrets,
    dataDir: dir,
    locations: { env: {}, platform: 'linux', homedir: dir },
  });
}
const onDisk = (): { mcpServers?: Record<string, Record<string, unknown>> } =>
  JSON.parse(fs.readFileSync(settingsFile, 'utf8'));

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-mcp-config-'));
  settingsFile = path.join(dir, 'settings.json');
  config = open();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the mcpServers settings', () => {
  it('on a fresh install holds one enabled "Files" server: the bundled filesystem server in <data dir>/sandbox', () => {
    expect(config.list()).toEqual([
      {
        name: 'Files',
        displayName: 'Files',
        enabled: true,
        trusted: false,
        callTimeoutMs: 60_000,
        kind: 'stdio',
        package: '@modelcontextprotocol/server-filesystem',
        args: [path.join(dir, 'sandbox')],
        envKeys: [],
        headerKeys: [],
        logLevel: 'info',
        // Told its sandbox as its one root (docs/user/mcp-servers.md#roots).
        roots: [path.join(dir, 'sandbox')],
        // What it runs: the bundled package and its folder (docs/user/approvals.md, "A server's identity").
        identity: expect.objectContaining({
          kind: 'stdio',
          package: '@modelcontextprotocol/server-filesystem',
          args: [path.join(dir, 'sandbox')],
        }),
      },
    ]);
  });

  it('keeps env and header values in the secret store, never in settings.json, and lists their names only', () => {
    config.add('github', { command: 'docker', args: ['run', '-i', 'gh'], env: { GITHUB_TOKEN: 'ghp_123456' } });
    config.add('remote', {
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer xyz-789' },
      trusted: true,
      callTimeoutMs: 5000,
    });
    const text = fs.readFileSync(settingsFile, 'utf8');
    expect(text).not.toContain('ghp_123456');
    expect(text).not.toContain('xyz-789');
    expect(onDisk().mcpServers?.github).toEqual({
      command: 'docker',
      args: ['run', '-i', 'gh'],
      env: { GITHUB_TOKEN: SECRET_PLACEHOLDER },
      // What it runs, recorded as it is added: a later change of the command reads as a changed launch spec.
      identity: {
        key: 'stdio:{"args":["run","-i","gh"],"command":"docker"}',
        description: 'docker run -i gh',
        since: expect.any(String),
      },
    });
    expect(onDisk().mcpServers?.remote).toEqual({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: SECRET_PLACEHOLDER },
      trusted: true,
      callTimeoutMs: 5000,
      identity: {
        key: 'http:https://mcp.example.com/mcp',
        description: 'https://mcp.example.com/mcp',
        since: expect.any(String),
      },
    });
    expect(secrets.get(secretKey('github', 'env', 'GITHUB_TOKEN'))).toBe('ghp_123456');
    expect(config.get('github')).toMatchObject({ envKeys: ['GITHUB_TOKEN'], kind: 'stdio' });
    expect(config.get('remote')).toMatchObject({
      headerKeys: ['Authorization'],
      kind: 'http',
      type: 'auto',
      trusted: true,
      callTimeoutMs: 5000,
    });
    expect(JSON.stringify(config.list())).not.toMatch(/ghp_123456|xyz-789/);
    expect(config.launchConfig('github')).toMatchObject({
      kind: 'stdio',
      command: 'docker',
      env: { GITHUB_TOKEN: 'ghp_123456' },
    });
    expect(config.launchConfig('remote')).toMatchObject({ kind: 'http', headers: { Authorization: 'Bearer xyz-789' } });
  });

  it('refuses a taken name (ignoring case) with conflict, an unknown one with not_found', () => {
    expect(() => config.add('files', { command: 'x' })).toThrow(
      expect.objectContaining({
        code: 'conflict',
        message: 'An MCP server named "files" already exists; choose another name.',
      }),
    );
    expect(() => config.get('nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => config.remove('nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('edits: a value sets a secret, null removes it, what is left out stays; kinds cannot be switched', () => {
    config.add('a', { command: 'node', env: { ONE: 'one-secret', TWO: 'two-secret' } });
    config.edit({
      name: 'a',
      env: { ONE: 'one-changed', TWO: null, THREE: 'three-secret' },
      args: ['x.js'],
      displayName: 'Server A',
      callTimeoutMs: 1000,
    });
    expect(config.get('a')).toMatchObject({
      envKeys: ['ONE', 'THREE'],
      args: ['x.js'],
      displayName: 'Server A',
      callTimeoutMs: 1000,
    });
    expect(config.launchConfig('a')).toMatchObject({ env: { ONE: 'one-changed', THREE: 'three-secret' } });
    expect(secrets.keys('mcp.a.')).toEqual(['mcp.a.env.ONE', 'mcp.a.env.THREE']);
    config.edit({ name: 'a', displayName: null, callTimeoutMs: null });
    expect(config.get('a')).toMatchObject({ displayName: 'a', callTimeoutMs: 60_000 });
    expect(() => config.edit({ name: 'a', url: 'https://x.example' })).toThrow(
      expect.objectContaining({ code: 'invalid_input', message: expect.stringMatching(/is a stdio server/) }),
    );
  });

  it("edits a server as the file holds it now, keeping another process's change to it", () => {
    config.add('Notes', { command: 'notes-server', args: ['--a'] });
    const cli = open();
    cli.edit({ name: 'Notes', args: ['--from-cli'] });
    config.edit({ name: 'Notes', trusted: true });
    // The other process changed what it runs: the identity its settings were made for is recorded (docs/user/approvals.md).
    expect(onDisk().mcpServers?.Notes).toEqual({
      command: 'notes-server',
      args: ['--from-cli'],
      trusted: true,
      identity: {
        key: 'stdio:{"args":["--a"],"command":"notes-server"}',
        description: 'notes-server --a',
        since: expect.any(String),
      },
    });
  });

  it('renames, moving the secrets; removes, deleting them', () => {
    config.add('old.name', { command: 'node', env: { TOKEN: 'tok-1234' } });
    config.add('other', { command: 'node', env: { TOKEN: 'tok-other' } });
    config.edit({ name: 'old.name', rename: 'new' });
    expect(config.list().map((server) => server.name)).toEqual(['Files', 'new', 'other']);
    expect(config.launchConfig('new')).toMatchObject({ env: { TOKEN: 'tok-1234' } });
    expect(secrets.keys('mcp.old%2Ename.')).toEqual([]);
    expect(() => config.edit({ name: 'new', rename: 'Other' })).toThrow(expect.objectContaining({ code: 'conflict' }));
    config.remove('new');
    expect(secrets.keys()).toEqual(['mcp.other.env.TOKEN']);
  });

  it('keeps secret keys of servers whose names share a prefix apart', () => {
    config.add('a', { command: 'node', env: { 'X.Y': 'first-secret' } });
    config.add('a.env', { command: 'node', env: { Y: 'second-secret' } });
    config.remove('a.env');
    expect(config.launchConfig('a')).toMatchObject({ env: { 'X.Y': 'first-secret' } });
  });

  it('moves values written into settings.json by hand into the secret store', () => {
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({ mcpServers: { pasted: { command: 'node', env: { KEY: 'pasted-secret' }, custom: 'kept' } } }),
    );
    config = open();
    expect(config.adoptPlaintextSecrets()).toEqual(['pasted']);
    // Found without a record of what it runs, it got one as it loaded: not accepted (docs/user/approvals.md).
    expect(onDisk().mcpServers?.pasted).toEqual({
      command: 'node',
      env: { KEY: SECRET_PLACEHOLDER },
      custom: 'kept',
      identity: {
        key: 'stdio:{"args":[],"command":"node"}',
        description: 'node',
        since: expect.any(String),
        accepted: false,
      },
    });
    expect(config.launchConfig('pasted')).toMatchObject({ env: { KEY: 'pasted-secret' } });
    expect(config.adoptPlaintextSecrets()).toEqual([]);
  });

  it('a missing secret stops the launch with a message naming it', () => {
    config.add('a', { command: 'node', env: { TOKEN: 'tok-1234' } });
    secrets.delete('mcp.a.env.TOKEN');
    expect(() => config.launchConfig('a')).toThrow(
      expect.objectContaining({
        code: 'unavailable',
        message: expect.stringContaining('environment variable TOKEN is missing'),
      }),
    );
  });
});

describe('import', () => {
  const claude = JSON.stringify({
    mcpServers: {
      Files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
      github: { command: 'docker', args: ['run'], env: { GITHUB_TOKEN: 'ghp_import' } },
      nothing: {},
    },
  });

  it('previews what will be added, what is renamed and what is skipped, and writes nothing', () => {
    const preview = config.previewImport({ fileName: 'claude_desktop_config.json', text: claude });
    expect(preview).toEqual({
      file: 'claude_desktop_config.json',
      format: 'claude-desktop',
      add: [
        {
          name: 'Files-2',
          originalName: 'Files',
          renamed: true,
          kind: 'stdio',
          summary: 'npx -y @modelcontextprotocol/server-filesystem /tmp',
          enabled: true,
          envKeys: [],
          headerKeys: [],
        },
        {
          name: 'github',
          originalName: 'github',
          renamed: false,
          kind: 'stdio',
          summary: 'docker run',
          enabled: true,
          envKeys: ['GITHUB_TOKEN'],
          headerKeys: [],
        },
      ],
      skip: [{ name: 'nothing', reason: 'it has neither a "command" nor a "url"' }],
    });
    expect(JSON.stringify(preview)).not.toContain('ghp_import');
    expect(fs.existsSync(settingsFile)).toBe(false);
    expect(secrets.keys()).toEqual([]);
  });

  it('imports what the preview showed, or only the servers named', () => {
    const result = config.import({ fileName: 'claude_desktop_config.json', text: claude }, ['github']);
    expect(result).toEqual({
      added: ['github'],
      skip: [{ name: 'nothing', reason: 'it has neither a "command" nor a "url"' }],
    });
    expect(config.launchConfig('github')).toMatchObject({ env: { GITHUB_TOKEN: 'ghp_import' } });
    expect(config.import({ fileName: 'claude_desktop_config.json', text: claude }).added).toEqual([
      'Files-2',
      'github-2',
    ]);
    expect(config.list().map((server) => server.name)).toEqual(['Files', 'github', 'Files-2', 'github-2']);
    expect(() => config.import({ fileName: 'c.json', text: claude }, ['nothing'])).toThrow(
      expect.objectContaining({ code: 'invalid_input', message: 'c.json has no importable server named "nothing".' }),
    );
  });

  it('finds each app’s file where the app keeps it, and names a missing one', () => {
    expect(() => config.previewImport({ app: 'cursor' })).toThrow(
      expect.objectContaining({
        code: 'not_found',
        message: `Cannot import from ${path.join(dir, '.cursor', 'mcp.json')}: there is no such file.`,
      }),
    );
    fs.mkdirSync(path.join(dir, '.config', 'Claude'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.config', 'Claude', 'claude_desktop_config.json'), claude);
    expect(config.previewImport({ app: 'claude-desktop' })).toMatchObject({
      file: path.join(dir, '.config', 'Claude', 'claude_desktop_config.json'),
      format: 'claude-desktop',
    });
    fs.mkdirSync(path.join(dir, '.config', 'Code', 'User'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, '.config', 'Code', 'User', 'mcp.json'),
      '{ "servers": { "t": { "type": "stdio", "command": "t" } } }',
    );
    expect(config.previewImport({ app: 'vscode' })).toMatchObject({ format: 'vscode', add: [{ name: 't' }] });
  });
});

describe("the organisation's identity provider for a server about to be added", () => {
  const IDP = { idpIssuer: 'https://login.example.com', idpClientId: 'wb-at-idp' };
  const withPolicy = (): McpServerConfigService =>
    createMcpServerConfigService({
      settings: openSettingsStore(settingsFile),
      secrets: openFileSecretStore(path.join(dir, 'secrets.json')),
      dataDir: dir,
      locations: { env: {}, platform: 'linux', homedir: dir },
      organisationIdp: organisationIdpLookup([
        { server: 'crm', ...IDP, idpClientSecret: 'org-secret', locked: true },
        { serverIdentity: { url: 'https://*.tools.example/**' }, ...IDP, idpClientId: 'wb-tools', locked: false },
      ]),
    });

  it('is found by the name and the URL as the add would find it, without the secret', () => {
    const service = withPolicy();
    expect(service.organisationIdpFor('crm', 'https://mcp.crm.example/mcp')).toEqual({
      ...IDP,
      locked: true,
      clientSecret: true,
    });
    expect(service.organisationIdpFor('notes', 'https://notes.tools.example/mcp')).toEqual({
      ...IDP,
      idpClientId: 'wb-tools',
      locked: false,
      clientSecret: false,
    });
    expect(service.organisationIdpFor('notes', 'https://notes.example.com/mcp')).toBeUndefined();
    expect(service.organisationIdpFor('', '')).toBeUndefined();
    expect(service.organisationIdpFor('x', 'not a url')).toBeUndefined();
    // A server already configured at the same URL lends the new one its names, as rules by name do.
    service.add('crm', { url: 'https://mcp.crm.example/mcp', enabled: false });
    expect(service.organisationIdpFor('sales', 'https://mcp.crm.example/mcp')).toMatchObject({ locked: true });
    // What it says is what the add does: a locked one cannot be replaced by the person's.
    expect(() =>
      service.add('sales', {
        url: 'https://mcp.crm.example/mcp',
        crossAppAccess: { idpIssuer: 'https://mine.example', idpClientId: 'x' },
      }),
    ).toThrow(/Set by your organisation/);
  });

  it('is never found without an organisation policy', () => {
    expect(config.organisationIdpFor('crm', 'https://mcp.crm.example/mcp')).toBeUndefined();
  });
});

describe('accepting what a server runs, as the person was shown it', () => {
  it('is refused when the server was changed again meanwhile, and applied when it runs what was shown', () => {
    config.add('notes', { url: 'https://a.example/mcp', enabled: false });
    config.edit({ name: 'notes', url: 'https://b.example/mcp' });
    const shown = config.get('notes').identityChanged?.current;
    expect(shown).toBe('https://b.example/mcp');
    // Changed again while the person was asked: their "accept" accepts nothing.
    config.edit({ name: 'notes', url: 'https://c.example/mcp' });
    expect(() => config.edit({ name: 'notes', acceptIdentity: true, acceptedIdentity: shown })).toThrow(
      /runs https:\/\/c\.example\/mcp now, not https:\/\/b\.example\/mcp as you were shown/,
    );
    expect(config.get('notes').identityChanged?.current).toBe('https://c.example/mcp');
    // Back to what was accepted before: nothing to accept either.
    config.edit({ name: 'notes', url: 'https://a.example/mcp' });
    expect(() => config.edit({ name: 'notes', acceptIdentity: true, acceptedIdentity: shown })).toThrow(
      /nothing to accept/,
    );
    // What the person was shown is what it runs: accepted.
    config.edit({ name: 'notes', url: 'https://b.example/mcp' });
    config.edit({ name: 'notes', acceptIdentity: true, acceptedIdentity: shown });
    expect(config.get('notes').identityChanged).toBeUndefined();
  });
});
