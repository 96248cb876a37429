/**
 * Names no settings map can hold (`__proto__`, `constructor`, `prototype`), through the real composition
 * (src/shared/setting-names.ts): `policy.update {servers: {"__proto__": …}}` must not answer ok and do nothing,
 * nor `mcp.add {name: "__proto__"}` write the server's secrets before it fails. Each is refused with a clear
 * error and changes nothing: not the settings file, not the secrets file, not the running servers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyView } from '../../shared/approval';
import type { Envelope, WorkbenchErrorData } from '../../shared/errors';
import type { McpImportPreview, McpServerView } from '../../shared/mcp';
import { RESERVED_SETTING_NAMES } from '../../shared/setting-names';
import { SECRETS_FILE_NAME } from '../settings/secret-store';
import { SETTINGS_FILE_NAME } from '../settings/settings-store';
import { createServices, type Services } from '../services';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

let dir: string;
let services: Services;
let dispatch: Dispatch;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-reserved-'));
  services = createServices({ dataDir: dir, host: 'browser', version: '0.0.0-test', managedPolicyFile: null });
  dispatch = createDispatcher(createHandlers(services), (error) => {
    throw error;
  });
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

function failed(envelope: Envelope): WorkbenchErrorData {
  if (envelope.ok) throw new Error(`expected an error, got ${JSON.stringify(envelope.value)}`);
  return envelope.error;
}

/** The files on disk, as they are: what a refused change must leave untouched. */
function files(): Record<string, string | null> {
  const read = (name: string): string | null =>
    fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : null;
  return { settings: read(SETTINGS_FILE_NAME), secrets: read(SECRETS_FILE_NAME) };
}

/** JSON as it arrives over the wire: `__proto__` is an own key there, as JSON.parse makes it. */
const wire = (text: string): unknown => JSON.parse(text);

describe('reserved names are refused, and nothing changes', () => {
  it.each(RESERVED_SETTING_NAMES)('policy.update with a server or tool named %s', async (name) => {
    ok(await dispatch('policy.update', { mode: 'ask' })); // the policy section exists on disk
    const before = files();
    const policy = ok<PolicyView>(await dispatch('policy.get', undefined));
    for (const change of [
      `{"servers": {"${name}": {"autoApprove": true}}}`,
      `{"tools": {"${name}": {"write_file": "auto-approve"}}}`,
      `{"tools": {"Files": {"${name}": "auto-approve"}}}`,
    ]) {
      const error = failed(await dispatch('policy.update', wire(change)));
      expect(error.code).toBe('invalid_input');
      expect(error.message).toContain(`"${name}" cannot be used as a name`);
    }
    expect(files()).toEqual(before);
    expect(ok<PolicyView>(await dispatch('policy.get', undefined))).toEqual(policy);
  });

  it.each(RESERVED_SETTING_NAMES)('mcp.add named %s, with secrets, while a server runs', async (name) => {
    services.mcp.start();
    const list = async (): Promise<McpServerView[]> =>
      ok<{ servers: McpServerView[] }>(await dispatch('mcp.list', undefined)).servers;
    const names = (await list()).map((server) => server.name);
    const before = files();
    const error = failed(
      await dispatch(
        'mcp.add',
        wire(
          `{"name": "${name}", "server": {"command": "sh", "args": ["-c", "echo owned"], "env": {"TOKEN": "secret-4711"}}}`,
        ),
      ),
    );
    expect(error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining(`"${name}" cannot be used as a name`),
    });
    expect(files()).toEqual(before);
    expect((await list()).map((server) => server.name)).toEqual(names);
    expect(services.secrets.keys('')).not.toContainEqual(expect.stringContaining('secret-4711'));
    expect(JSON.stringify(services.secrets.keys(''))).not.toContain(name);
  });

  it('mcp.add with an env variable named __proto__ is refused, not dropped', async () => {
    const before = files();
    const error = failed(
      await dispatch('mcp.add', wire('{"name": "Tools", "server": {"command": "sh", "env": {"__proto__": "x"}}}')),
    );
    // The server's shape is a union, whose message is zod's general one; the name check itself is the same as above.
    expect(error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('Invalid input for mcp.add: server'),
    });
    expect(files()).toEqual(before);
  });

  it('the service refuses the name too, before it writes a secret (callers other than the contract)', () => {
    const before = files();
    expect(() => services.mcpServers.add('__proto__', { command: 'sh', env: { TOKEN: 'secret-4711' } })).toThrow(
      /"__proto__" cannot be used as a name/,
    );
    expect(files()).toEqual(before);
    expect(services.secrets.keys('')).toEqual(expect.not.arrayContaining([expect.stringContaining('__proto__')]));
  });

  it('an import skips a server named __proto__ (with the reason) and imports the rest', async () => {
    const text =
      '{"mcpServers": {"__proto__": {"command": "sh"}, "constructor": {"command": "sh"}, "Good": {"command": "node", "env": {"__proto__": "x"}}, "Fine": {"command": "node"}}}';
    const preview = ok<McpImportPreview>(
      await dispatch('mcp.importPreview', { source: { fileName: 'claude_desktop_config.json', text } }),
    );
    expect(preview.add.map((item) => item.name)).toEqual(['Fine']);
    expect(preview.skip).toEqual([
      { name: '__proto__', reason: expect.stringContaining('"__proto__" cannot be used as a name') },
      { name: 'constructor', reason: expect.stringContaining('"constructor" cannot be used as a name') },
      { name: 'Good', reason: expect.stringContaining('"env": "__proto__" cannot be used as a name') },
    ]);
  });

  it('providers: an id named constructor is refused; a label that would make it gets another id', async () => {
    const error = failed(
      await dispatch('providers.add', {
        kind: 'openai-compatible',
        id: 'constructor',
        baseURL: 'http://127.0.0.1:1/v1',
      }),
    );
    expect(error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('"constructor" cannot be used as a name'),
    });
    const added = ok<{ id: string }>(
      await dispatch('providers.add', {
        kind: 'openai-compatible',
        label: 'Constructor',
        baseURL: 'http://127.0.0.1:1/v1',
      }),
    );
    expect(added.id).toBe('constructor-2');
  });
});
