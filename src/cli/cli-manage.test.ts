// The management commands, run as a person or a script runs them: the built CLI as a child process on a temporary
// data folder, against the real services, SQLite and the bundled MCP servers.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyExplanation, PolicyView } from '../shared/approval';
import type { AuditPage } from '../shared/audit';
import type { Chat } from '../shared/chat';
import type { ProviderInfo } from '../shared/llm';
import type { McpServerView, McpTool } from '../shared/mcp';
import { hasColors } from './terminal';
import { BIN, cliJson, makeHome, runCli } from './testing/cli-process';
import { titleUnless } from '../main/testing/skip-reason';

const windows = process.platform === 'win32';

let home: string;
beforeAll(() => {
  home = makeHome();
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

// Each test runs several commands, each allowed HANG_LIMIT_MS; a loaded 2-core machine needs far more than vitest's 30 s.
describe('workbench (management commands)', { timeout: 300_000 }, () => {
  it('starts through bin/workbench.js and prints its version and, bare, the help with the exit codes', async () => {
    const version = await runCli(['--version'], { home, entry: BIN, env: { WORKBENCH_SKIP_BUILD: '1' } });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const bare = await runCli([], { home });
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('Usage: workbench');
    expect(bare.stdout).toMatch(
      /Exit codes:\n\s+0\s+success\n\s+1\s+an error.*\n\s+2\s+a tool call was denied.*\n\s+3\s+audit verify.*\n\s+130\s+interrupted/,
    );
  });

  it.skipIf(windows)(
    titleUnless(
      'tightens a data folder other users could read, and says so on stderr once',
      windows,
      'Windows has no POSIX file modes',
    ),
    async () => {
      const loose = makeHome();
      try {
        fs.chmodSync(loose, 0o755);
        const first = await runCli(['chats', 'list'], { home: loose });
        expect(first.code).toBe(0);
        expect(first.stderr).toContain(
          `workbench: Other users of this computer could read AI Workbench's data folder ${loose}`,
        );
        expect(first.stderr).toContain(`${loose}: 0755 → 0700`);
        expect(fs.statSync(loose).mode & 0o777).toBe(0o700);
        expect(fs.statSync(path.join(loose, 'workbench.db')).mode & 0o777).toBe(0o600);
        const second = await runCli(['chats', 'list'], { home: loose });
        expect(second.stderr).not.toContain('Other users');
      } finally {
        fs.rmSync(loose, { recursive: true, force: true });
      }
    },
  );

  it('refuses a damaged database on its quick path (chats list) as every other command does, leaving the file as it was', async () => {
    const damaged = makeHome();
    try {
      const file = path.join(damaged, 'workbench.db');
      fs.writeFileSync(file, `SQLite format 3\u0000${'garbage '.repeat(600)}`, { mode: 0o600 });
      const before = fs.readFileSync(file);
      for (const args of [
        ['chats', 'list'],
        ['chats', 'list', '--json'],
        ['servers', 'list'],
      ]) {
        const result = await runCli(args, { home: damaged });
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stderr, args.join(' ')).toContain(`AI Workbench cannot start: The database ${file} is damaged`);
        expect(result.stdout, args.join(' ')).toBe('');
      }
      expect(fs.readFileSync(file).equals(before)).toBe(true);
    } finally {
      fs.rmSync(damaged, { recursive: true, force: true });
    }
  });

  it('manages MCP servers: add a bundled one, list, disable, enable, list its tools, show its logs, remove', async () => {
    const added = await cliJson<McpServerView>(
      ['servers', 'add', 'notes', '--package', '@modelcontextprotocol/server-memory'],
      { home },
    );
    expect(added).toMatchObject({ name: 'notes', enabled: true, package: '@modelcontextprotocol/server-memory' });
    expect((await cliJson<McpServerView[]>(['servers', 'list'], { home })).map((server) => server.name)).toEqual([
      'Files',
      'notes',
    ]);

    const tools = await cliJson<McpTool[]>(['servers', 'tools', 'notes'], { home });
    expect(tools.map((tool) => tool.name)).toContain('create_entities');
    expect(tools.every((tool) => tool.serverName === 'notes')).toBe(true);
    const logs = await cliJson<{ name: string; lines: { source: string; text: string }[] }>(
      ['servers', 'logs', 'notes'],
      { home },
    );
    expect(logs.name).toBe('notes');
    expect(logs.lines.length).toBeGreaterThan(0);

    expect((await cliJson<McpServerView>(['servers', 'disable', 'notes'], { home })).enabled).toBe(false);
    const listed = await runCli(['servers', 'list'], { home });
    expect(listed.stdout).toMatch(/notes\s+no\s+no\s+stdio/);
    expect(hasColors(listed.stdout)).toBe(false);
    expect((await cliJson<McpServerView>(['servers', 'enable', 'notes'], { home })).enabled).toBe(true);

    const removed = await runCli(['servers', 'remove', 'notes'], { home });
    expect(removed).toMatchObject({ code: 0, stdout: 'Removed notes.\n' });
    const again = await runCli(['servers', 'remove', 'notes'], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^workbench: .*notes/);
  });

  it('imports servers from a Claude Desktop configuration file', async () => {
    const file = path.join(home, '..', `${path.basename(home)}-claude.json`);
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { kv: { command: 'node', args: ['kv-server.js'] } } }));
    try {
      const result = await cliJson<{ added: string[] }>(['servers', 'import', file], { home });
      expect(result.added).toEqual(['kv']);
      expect((await runCli(['servers', 'remove', 'kv'], { home })).code).toBe(0);
      const missing = await runCli(['servers', 'import', path.join(home, 'nope.json')], { home });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('nope.json: no such file');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('shows, changes and explains the policy, naming a bad value', async () => {
    expect((await cliJson<PolicyView>(['policy', 'show'], { home })).policy.mode).toBe('ask');
    const asked = await cliJson<PolicyExplanation>(
      ['policy', 'explain', 'Files', 'write_file', '{"path": "/tmp/x", "content": "x"}'],
      { home },
    );
    expect(asked).toMatchObject({ outcome: 'ask', toolKnown: true });

    await cliJson(['policy', 'set', 'tool', 'Files', 'write_file', 'auto-approve'], { home });
    expect((await cliJson<PolicyView>(['policy', 'show'], { home })).policy.tools).toEqual({
      Files: { write_file: 'auto-approve' },
    });
    await cliJson(
      ['policy', 'set', 'rule', 'add', 'deny', '*', 'write_*', '--arg', '/path:glob:/etc/**', '--id', 'no-etc'],
      { home },
    );
    const denied = await cliJson<PolicyExplanation>(
      ['policy', 'explain', 'Files', 'write_file', '{"path": "/etc/passwd", "content": "x"}'],
      { home },
    );
    expect(denied).toMatchObject({ outcome: 'deny', source: { kind: 'deny-rule', ruleId: 'no-etc' } });
    const words = await runCli(['policy', 'explain', 'Files', 'write_file', '{"path": "/etc/passwd"}'], { home });
    expect(words.stdout).toMatch(/^DENY: Denied by your rule #1/);

    // An allow rule that lists the whole arguments it allows (what an Insights suggestion writes): that call only.
    await cliJson(
      [
        'policy',
        'set',
        'rule',
        'add',
        'allow',
        'Files',
        'read_file',
        '--arg',
        ':one-of:[{"path":"a.md"}]',
        '--id',
        'one',
      ],
      { home },
    );
    const listed = async (args: string) =>
      (await cliJson<PolicyExplanation>(['policy', 'explain', 'Files', 'read_file', args], { home })).outcome;
    expect(await listed('{"path": "a.md"}')).toBe('allow');
    expect(await listed('{"path": "a.md", "tail": 5}')).toBe('ask');
    expect((await runCli(['policy', 'show'], { home })).stdout).toContain(
      'when (the arguments) is one of [{"path":"a.md"}]',
    );
    await cliJson(['policy', 'set', 'rule', 'remove', 'one'], { home });

    const badMode = await runCli(['policy', 'set', 'mode', 'sometimes'], { home });
    expect(badMode.code).toBe(1);
    expect(badMode.stderr).toContain(
      'mode must be one of ask, auto-approve-read-only-trusted, never-ask, not "sometimes"',
    );
    const badJson = await runCli(['policy', 'explain', 'Files', 'write_file', '{path:'], { home });
    expect(badJson.code).toBe(1);
    expect(badJson.stderr).toContain('ARGS_JSON is not valid JSON');
    const badRegex = await runCli(['policy', 'set', 'rule', 'add', 'deny', '*', '*', '--arg', '/path:regex:(a+)+'], {
      home,
    });
    expect(badRegex.code).toBe(1);
    expect(badRegex.stderr).toMatch(/args\[0\]\.value: repeats a group that itself repeats/);

    // A server's sampling: allowed, with its budget, shown in words; a wrong value or budget is named.
    await cliJson(['policy', 'set', 'sampling', 'Everything', 'allow'], { home });
    await cliJson(['policy', 'set', 'sampling-budget', 'Everything', '2000'], { home });
    expect((await cliJson<PolicyView>(['policy', 'show'], { home })).policy.servers).toEqual({
      Everything: { autoApprove: false, sampling: 'allow', samplingTokenBudget: 2000 },
    });
    expect((await runCli(['policy', 'show'], { home })).stdout).toContain(
      'Everything: ask; sampling: allow, 2,000 tokens per chat',
    );
    const badSampling = await runCli(['policy', 'set', 'sampling', 'Everything', 'sometimes'], { home });
    expect(badSampling.stderr).toContain('sampling must be one of allow, ask, deny, not "sometimes"');
    const badBudget = await runCli(['policy', 'set', 'sampling-budget', 'Everything', '-5'], { home });
    expect(badBudget.code).toBe(1);
    expect(badBudget.stderr).toMatch(/sampling-budget/);
    await cliJson(['policy', 'set', 'server', 'Everything', 'forget'], { home });

    await cliJson(['policy', 'set', 'rule', 'remove', 'no-etc'], { home });
    await cliJson(['policy', 'set', 'tool', 'Files', 'write_file', 'inherit'], { home });
    expect((await cliJson<PolicyView>(['policy', 'show'], { home })).policy).toMatchObject({ rules: [], tools: {} });
  });

  it('names the bad flag or value, and ends with exit code 1', async () => {
    const cases: [string[], RegExp][] = [
      [['audit', 'query', '--limit', '0'], /--limit takes a whole number from 1 to 500, not 0/],
      [['audit', 'query', '--decision', 'maybe'], /--decision must be one of allow_session, .*, not "maybe"/],
      [['audit', 'query', '--from', 'yesterday'], /--from takes an ISO 8601 time .*"yesterday"/],
      [
        ['audit', 'export', '--format', 'xml', '--out', 'x.xml'],
        /option '--format <format>' argument 'xml' is invalid/,
      ],
      [['audit', 'export', '--format', 'csv'], /required option '--out <file>' not specified/],
      [['servers', 'add', 'x'], /Give exactly one of: a command \(after --\), --package PACKAGE, or --url URL/],
      [['servers', 'add', 'x', '--url', 'ftp://x'], /url: must be an http:\/\/ or https:\/\/ URL/],
      [['chats', 'show', 'ffffffff'], /No chat has the id 'ffffffff'/],
      [['servers', 'lisst'], /unknown command 'lisst'/],
      [['chats', 'list', '--colour'], /unknown option '--colour'/],
      [
        ['providers', 'add', '--kind', 'openai', '--api-key-env', 'AIWB_NOT_SET'],
        /--api-key-env names AIWB_NOT_SET, but that environment variable is not set/,
      ],
    ];
    for (const [args, expected] of cases) {
      const result = await runCli(args, { home });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(expected);
      expect(result.stderr).toMatch(/^workbench: /);
    }
  });

  it('refuses an interactive chat without a terminal, pointing to run', async () => {
    const result = await runCli(['chat'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('workbench chat needs a terminal');
    expect(result.stderr).toContain('workbench run');
  });

  it('manages providers; keys come from the environment and are never printed', async () => {
    const added = await cliJson<ProviderInfo>(
      [
        'providers',
        'add',
        '--kind',
        'openai-compatible',
        '--id',
        'local',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--model',
        'llama',
        '--api-key-env',
        'AIWB_KEY',
      ],
      {
        home,
        env: { AIWB_KEY: 'sk-test-secret-value-1234567890' },
      },
    );
    expect(added).toMatchObject({ id: 'local', kind: 'openai-compatible', hasApiKey: true, defaultModel: 'llama' });
    const list = await runCli(['providers', 'list', '--json'], { home });
    expect(list.stdout).not.toContain('sk-test-secret');
    expect((JSON.parse(list.stdout) as ProviderInfo[]).map((provider) => provider.id)).toEqual(['demo', 'local']);
    const test = await runCli(['providers', 'test', 'local'], { home });
    expect(test.code).toBe(1);
    expect(test.stdout).toMatch(/^Failed: /);
    expect(
      await cliJson<ProviderInfo>(['providers', 'set', 'local', '--model', 'qwen', '--clear-api-key'], { home }),
    ).toMatchObject({ defaultModel: 'qwen', hasApiKey: false });
    expect((await cliJson(['providers', 'remove', 'local'], { home })) as unknown).toEqual({ id: 'local' });
  });

  it('lists, shows, renames and deletes chats; an id prefix is enough', async () => {
    const run = await runCli(['run', 'list files'], { home });
    expect(run.code).toBe(2);
    const [chat] = await cliJson<Chat[]>(['chats', 'list'], { home });
    expect(chat?.title).toBe('list files');
    const prefix = chat?.id.slice(0, 8) as string;
    const shown = await cliJson<{ chat: Chat; messages: { role: string }[] }>(['chats', 'show', prefix], { home });
    expect(shown.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant']);
    const text = await runCli(['chats', 'show', prefix], { home });
    expect(text.stdout).toContain('› list files');
    expect(text.stdout).toMatch(/⏺ Files · list_directory · denied/);
    expect((await cliJson<Chat>(['chats', 'rename', prefix, 'Renamed in the CLI'], { home })).title).toBe(
      'Renamed in the CLI',
    );
    expect(await cliJson(['chats', 'mode', prefix, 'always-ask'], { home })).toEqual({
      chatId: chat?.id,
      mode: 'always-ask',
    });
    expect((await runCli(['chats', 'mode', prefix], { home })).stdout).toBe(`Chat ${prefix}: always-ask\n`);
    expect((await runCli(['chats', 'mode', prefix, 'sometimes'], { home })).stderr).toContain(
      "A chat's mode must be one of use-tool-settings, always-ask, never-ask",
    );
    const badTitle = await runCli(['chats', 'rename', prefix, '   '], { home });
    expect(badTitle.stderr).toContain('title: must not be empty');
    expect(await cliJson(['chats', 'delete', prefix], { home })).toEqual({ id: chat?.id });
    expect(await cliJson(['chats', 'list'], { home })).toEqual([]);
    // Its audit rows stay, and can still be found by the deleted chat's id.
    const page = await cliJson<AuditPage>(['audit', 'query', '--chat', chat?.id as string], { home });
    // Newest first: the change of the chat's mode (a policy row, docs/user/audit-log.md), then the denial.
    expect(page.entries.map((entry) => entry.decision ?? entry.kind)).toEqual(['policy', 'deny']);
  });

  it('queries, exports (progress on stderr) and verifies the audit log; a tampered log ends with exit code 3', async () => {
    await runCli(['run', 'list files'], { home });
    const page = await cliJson<AuditPage>(
      ['audit', 'query', '--actor', 'system', '--kind', 'decision', '--limit', '1'],
      { home },
    );
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      decision: 'deny',
      actor: 'system',
      decidedBy: "Denied by the CLI's non-interactive mode: no one at a terminal could be asked",
    });
    expect(page.nextCursor).not.toBeNull();

    const out = path.join(path.dirname(home), `${path.basename(home)}-export.jsonl`);
    // The earlier tests' policy changes are rows too.
    const total = (await cliJson<AuditPage>(['audit', 'query', '--limit', '500'], { home })).entries.length;
    try {
      const exported = await runCli(['audit', 'export', '--format', 'jsonl', '--out', out], { home });
      expect(exported.code).toBe(0);
      expect(exported.stdout).toMatch(new RegExp(`^Exported ${total} rows to `));
      expect(exported.stderr).toContain(`Exporting… 100% (${total} of ${total} rows)`);
      expect(fs.readFileSync(out, 'utf8').split('\n')[0]).toContain('"aiWorkbenchAuditExport":1');
      const refused = await runCli(['audit', 'export', '--format', 'jsonl', '--out', out], { home });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/exists/);
    } finally {
      fs.rmSync(out, { force: true });
    }

    const verified = await runCli(['audit', 'verify'], { home });
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(new RegExp(`^OK: ${total} rows verify`));
    expect(verified.stderr).toContain('Verifying… 100%');

    const db = new BetterSqlite3(path.join(home, 'workbench.db'));
    try {
      db.exec('DROP TRIGGER audit_log_no_update');
      db.prepare("UPDATE audit_log SET decided_by = 'someone else' WHERE sequence = 1").run();
    } finally {
      db.close();
    }
    const broken = await runCli(['audit', 'verify', '--json'], { home });
    expect(broken.code).toBe(3);
    expect(JSON.parse(broken.stdout)).toMatchObject({ ok: false, problem: { sequence: 1, kind: 'content-changed' } });
  });
});
