import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SETTINGS_VERSION } from './settings-migrations';
import { openSettingsStore, SettingsError } from './settings-store';

const dirs: string[] = [];
function settingsFile(content?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-migrate-'));
  dirs.push(dir);
  const file = path.join(dir, 'settings.json');
  if (content !== undefined)
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const read = (file: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
const backupOf = (file: string): string => path.join(path.dirname(file), 'settings.v1.json');
const filesIn = (file: string): string[] => fs.readdirSync(path.dirname(file)).sort();

const VERSION_1 = {
  version: 1,
  providers: [{ id: 'demo', kind: 'demo' }],
  approvals: {
    mode: 'auto-approve-read-only-trusted',
    servers: {
      Files: { autoApprove: true, trustAnnotations: true },
      Web: { trustAnnotations: false },
      Gone: { trustAnnotations: true },
    },
    rules: [],
  },
  mcpServers: {
    Files: {
      package: '@modelcontextprotocol/server-filesystem',
      args: ['/data/sandbox'],
      displayName: 'Files',
      custom: { kept: true },
    },
    Web: { url: 'https://example.com/mcp', trusted: true },
    Notes: { command: 'notes-server' },
  },
  future: { something: ['a newer build wrote this'] },
};

describe('settings migration 1 → 2 (trust moves to mcpServers.<name>.trusted)', () => {
  it('moves the trust flags, keeps every decision the same, loses nothing and keeps the old file beside it', () => {
    const file = settingsFile(VERSION_1);
    const original = fs.readFileSync(file, 'utf8');
    const store = openSettingsStore(file);
    expect(read(file)).toEqual({
      version: 2,
      providers: [{ id: 'demo', kind: 'demo' }],
      approvals: { mode: 'auto-approve-read-only-trusted', servers: { Files: { autoApprove: true } }, rules: [] },
      mcpServers: {
        Files: {
          package: '@modelcontextprotocol/server-filesystem',
          args: ['/data/sandbox'],
          displayName: 'Files',
          custom: { kept: true },
          trusted: true,
        },
        // Marked trusted only in its MCP settings, which no decision read: it stays untrusted, with a note.
        Web: { url: 'https://example.com/mcp', trusted: false },
        Notes: { command: 'notes-server' },
      },
      future: { something: ['a newer build wrote this'] },
    });
    expect(fs.readFileSync(backupOf(file), 'utf8')).toBe(original);
    expect(store.migration).toMatchObject({ from: 1, to: SETTINGS_VERSION, backup: backupOf(file) });
    expect(store.migration?.notes).toEqual([
      expect.stringMatching(
        /^The MCP server 'Web' was marked trusted in its own settings, but the approval policy did not trust its annotations/,
      ),
      "The trust of 'Gone' was dropped: no MCP server has that name any more.",
    ]);
    // Opening again changes nothing more.
    const migrated = fs.readFileSync(file, 'utf8');
    expect(openSettingsStore(file).migration).toBeNull();
    expect(fs.readFileSync(file, 'utf8')).toBe(migrated);
  });

  it('puts the default servers in place when the file had none but trusted one of them', () => {
    const file = settingsFile({ approvals: { servers: { Files: { trustAnnotations: true } } } });
    openSettingsStore(file);
    const document = read(file);
    expect(document.mcpServers).toEqual({
      Files: {
        package: '@modelcontextprotocol/server-filesystem',
        args: [path.join(path.dirname(file), 'sandbox')],
        enabled: true,
        displayName: 'Files',
        trusted: true,
      },
    });
    expect(document.approvals).toEqual({ servers: {} });
  });

  it('leaves a version 1 file that needs no change as it is, and stamps the version at the next change', () => {
    const content = '{ "ui": { "theme": "dark" } }';
    const file = settingsFile(content);
    const store = openSettingsStore(file);
    expect(store.migration).toBeNull();
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
    expect(filesIn(file)).toEqual(['settings.json']);
    store.section('chat', z.object({ rounds: z.number().default(1) }), { rounds: 1 }).update(() => ({ rounds: 2 }));
    expect(read(file)).toEqual({ ui: { theme: 'dark' }, version: 2, chat: { rounds: 2 } });
  });

  it.each([
    ['broken JSON', '{"approvals": {"servers": {"Files": {"trustAnnotations": true}},', /not valid JSON/],
    [
      'a trust flag that is not true or false',
      JSON.stringify({ approvals: { servers: { Files: { trustAnnotations: 'yes' } } } }),
      /approvals\.servers\.Files\.trustAnnotations: must be true or false/,
    ],
    [
      'servers that are not an object',
      JSON.stringify({ approvals: { servers: { Files: { trustAnnotations: true } } }, mcpServers: [1] }),
      /mcpServers: must be an object/,
    ],
    [
      'a version that is not a number',
      JSON.stringify({ version: 'two' }),
      /version: must be a whole number from 1 \(it is "two"\)/,
    ],
    [
      'a newer version',
      JSON.stringify({ version: 3, approvals: {} }),
      /written by a newer version of AI Workbench \(settings version 3; this one reads up to 2\)/,
    ],
  ])('refuses %s with the file and field named, and writes nothing (no backup either)', (_case, content, message) => {
    const file = settingsFile(content);
    expect(() => openSettingsStore(file)).toThrow(SettingsError);
    expect(() => openSettingsStore(file)).toThrow(message);
    expect(() => openSettingsStore(file)).toThrow(file);
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
    expect(filesIn(file)).toEqual(['settings.json']);
  });

  it('never replaces an earlier backup that holds something else', () => {
    const file = settingsFile(VERSION_1);
    const original = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(backupOf(file), 'an older backup');
    const store = openSettingsStore(file);
    expect(fs.readFileSync(backupOf(file), 'utf8')).toBe('an older backup');
    expect(store.migration?.backup).toMatch(/settings\.v1\.\d{4}-\d\d-\d\dT[\d-]+Z\.json$/);
    expect(fs.readFileSync(store.migration?.backup as string, 'utf8')).toBe(original);
  });

  it('migrates again when it was cut off after the backup, reusing that backup', () => {
    const file = settingsFile(VERSION_1);
    const original = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(backupOf(file), original);
    expect(openSettingsStore(file).migration?.backup).toBe(backupOf(file));
    expect(filesIn(file)).toEqual(['settings.json', 'settings.v1.json']);
    expect(read(file).version).toBe(2);
  });

  it('migrates a file an older build wrote back while this one was running, before applying a change', () => {
    const file = settingsFile({ version: 2, ui: { theme: 'dark' } });
    const store = openSettingsStore(file);
    const ui = store.section('ui', z.object({ theme: z.string() }), { theme: 'system' });
    fs.writeFileSync(file, JSON.stringify({ ...VERSION_1, ui: { theme: 'dark' } }));
    ui.update(() => ({ theme: 'light' }));
    const document = read(file);
    expect(document).toMatchObject({
      version: 2,
      ui: { theme: 'light' },
      approvals: { servers: { Files: { autoApprove: true } } },
    });
    expect((document.mcpServers as Record<string, { trusted?: boolean }>).Files?.trusted).toBe(true);
    expect(fs.existsSync(backupOf(file))).toBe(true);
  });
});
