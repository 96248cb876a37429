// Policy rows (docs/user/audit-log.md): every change of the approval policy, of a chat's mode, every grant and
// revocation, a server's trust and the organisation's file seen at start become an audit row of kind 'policy' with who
// and a redacted before/after, through the dispatcher and the real services (SQLite, the Demo provider, the real Files
// server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PendingApproval } from '../../shared/approval';
import type { AuditEntry, AuditVerifyResult } from '../../shared/audit';
import type { Envelope } from '../../shared/errors';
import { createServices, type Services } from '../services';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

let dir: string;
let services: Services | undefined;
let dispatch: Dispatch;
let onInternalError: ReturnType<typeof vi.fn<(error: unknown, method: string) => void>>;

afterEach(async () => {
  await stop();
  expect(onInternalError).not.toHaveBeenCalled();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function stop(): Promise<void> {
  if (!services) return;
  await services.conversations.dispose();
  await services.mcp.stop();
  services.close();
  services = undefined;
}

function open(host: 'browser' | 'cli', managedPolicyFile: string | null = null): Services {
  const started = createServices({ dataDir: path.join(dir, 'data'), host, version: '0', managedPolicyFile });
  services = started;
  onInternalError = vi.fn<(error: unknown, method: string) => void>();
  dispatch = createDispatcher(createHandlers(started), onInternalError);
  return started;
}

async function ok<T>(method: string, input?: unknown): Promise<T> {
  const envelope: Envelope = await dispatch(method, input);
  if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.value as T;
}

async function policyRows(): Promise<AuditEntry[]> {
  const page = await ok<{ entries: AuditEntry[] }>('audit.query', { kind: 'policy', limit: 100 });
  return page.entries.slice().reverse();
}

async function ready(started: Services): Promise<void> {
  started.mcp.start();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { state, toolCount } = started.mcp.server('Files').status;
    if (state === 'ready' && toolCount > 0) return;
    if (Date.now() > deadline) throw new Error(`The Files server did not become ready (state: ${state}).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('policy rows in the audit log', () => {
  it('records each change of the approval policy with who, a redacted before/after and its place in the chain', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-policy-audit-'));
    open('browser');
    await ok('policy.update', { mode: 'never-ask', timeoutSeconds: 60 });
    await ok('policy.update', {
      tools: { Files: { write_file: 'always-ask' } },
      servers: { Files: { autoApprove: true } },
    });
    await ok('policy.update', {
      rules: {
        add: [
          {
            id: 'no-token',
            effect: 'deny',
            server: '*',
            tool: 'fetch',
            args: [{ pointer: '/url', match: 'regex', value: 'Bearer abcdefghijklmnop' }],
          },
        ],
      },
    });
    await ok('policy.update', { rules: { remove: ['no-token'] } });
    // A change to the value it already has changes nothing and records nothing.
    await ok('policy.update', { mode: 'never-ask' });

    const rows = await policyRows();
    expect(rows.map((row) => [row.kind, row.actor, row.decidedBy])).toEqual([
      ['policy', 'user', 'Approval policy: global mode: ask → never-ask; approval timeout: 300 → 60 s'],
      [
        'policy',
        'user',
        "Approval policy: server 'Files': ask → auto-approve; tool Files.write_file: inherit → always-ask",
      ],
      ['policy', 'user', "Approval policy: rule 'no-token' added (deny * fetch)"],
      ['policy', 'user', "Approval policy: rule 'no-token' removed (deny * fetch)"],
    ]);
    expect(rows[0]).toMatchObject({
      args: { mode: 'ask', timeoutSeconds: 300 },
      editedArgs: { mode: 'never-ask', timeoutSeconds: 60 },
      decision: null,
      toolCallId: '',
    });
    expect(rows[1]).toMatchObject({
      args: { 'servers/Files': null, 'tools/Files/write_file': null },
      editedArgs: { 'servers/Files': { autoApprove: true }, 'tools/Files/write_file': 'always-ask' },
    });
    // Redacted: the rule's key names a token, so its value is hidden; the hash still covers it.
    expect(rows[2]?.editedArgs).toEqual({ 'rules/no-token': '[REDACTED]' });
    expect(rows[2]?.editedArgsHash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(rows[3]?.args).toEqual({ 'rules/no-token': '[REDACTED]' });
    expect(await ok<AuditVerifyResult>('audit.verify')).toMatchObject({ ok: true, rowCount: 4 });
  });

  it('records a chat mode change, a grant from a card and its revocation; the CLI is named as the CLI', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-policy-audit-'));
    const started = open('cli');
    await ready(started);
    const chatId = (await ok<{ id: string }>('chat.create', {})).id;
    await ok('approvals.setChatMode', { chatId, mode: 'always-ask' });
    await ok('approvals.setChatMode', { chatId, mode: 'always-ask' });
    await ok('approvals.setChatMode', { chatId, mode: 'use-tool-settings' });
    await ok('chat.send', { chatId, message: { role: 'user', text: 'write harmless.txt: hello' } });
    await started.conversations.settled(chatId);
    const [pending] = (await ok<{ approvals: PendingApproval[] }>('approvals.pending', { chatId })).approvals;
    const toolCallId = pending?.request.toolCallId as string;
    await ok('chat.send', {
      chatId,
      message: { role: 'approval', toolCallApprovals: [{ toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' }] },
    });
    await started.conversations.settled(chatId);
    await ok('grants.revoke', { chatId, server: 'Files', tool: 'write_file' });

    const rows = await policyRows();
    expect(rows.map((row) => [row.actor, row.chatId, row.serverName, row.toolName, row.decidedBy])).toEqual([
      ['cli', chatId, '', '', 'Chat mode: use-tool-settings → always-ask'],
      ['cli', chatId, '', '', 'Chat mode: always-ask → use-tool-settings'],
      ['cli', chatId, 'Files', 'write_file', 'Allowed Files.write_file for this chat'],
      ['cli', chatId, 'Files', 'write_file', 'Revoked "Allow for this chat" of Files.write_file'],
    ]);
    expect(rows[2]).toMatchObject({
      args: { grant: null },
      editedArgs: { grant: { grantedAt: expect.any(String) } },
      definitionHash: pending?.request.definitionHash,
    });
    // The grant's row commits with the decision row, right after it in the chain.
    const decision = (await ok<{ entries: AuditEntry[] }>('audit.query', { chatId, kind: 'decision' }))
      .entries[0] as AuditEntry;
    expect(decision.decision).toBe('allow_session');
    expect(rows[2]?.sequence).toBe(decision.sequence + 1);
  });

  it("records a server's trust when it changes (mcp.edit), as a policy row", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-policy-audit-'));
    open('browser');
    await ok('mcp.edit', { name: 'Files', trusted: true });
    await ok('mcp.edit', { name: 'Files', displayName: 'My files' });
    await ok('mcp.edit', { name: 'Files', trusted: false });
    expect((await policyRows()).map((row) => [row.actor, row.serverName, row.args, row.editedArgs])).toEqual([
      ['user', 'Files', { trusted: false }, { trusted: true }],
      ['user', 'Files', { trusted: true }, { trusted: false }],
    ]);
  });

  it("records the organisation's file when a start first sees it, when it changed and when it went away — once each", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-policy-audit-'));
    const file = path.join(dir, 'managed.json');
    fs.writeFileSync(file, JSON.stringify({ rules: [{ id: 'no-rm', server: '*', tool: 'rm' }] }));
    open('browser', file);
    await stop();
    open('browser', file);
    await stop();
    fs.writeFileSync(
      file,
      JSON.stringify({ disallowNeverAsk: true, rules: [{ id: 'no-rm', server: '*', tool: 'rm' }] }),
    );
    open('browser', file);
    await stop();
    open('browser', null);
    await stop();
    open('browser', null);
    const rows = await policyRows();
    expect(rows.map((row) => [row.actor, row.decidedBy])).toEqual([
      // The file's path is text like any other: redacted where it looks like a token (a random temporary folder may).
      [
        'managed',
        expect.stringMatching(
          /^Organisation policy .* first seen: rule 'no-rm' added \(deny \* rm\); disallowNeverAsk: not set → false/,
        ),
      ],
      ['managed', expect.stringMatching(/^Organisation policy .* changed: disallowNeverAsk: false → true$/)],
      ['managed', expect.stringMatching(/ removed: /)],
    ]);
    expect(rows[0]?.editedArgs).toMatchObject({
      source: 'env',
      'rules/no-rm': { id: 'no-rm', effect: 'deny', server: '*', tool: 'rm' },
    });
    expect(rows[2]?.editedArgs).toMatchObject({ file: null, 'rules/no-rm': null });
  });

  it("records the organisation's OAuth settings without their secrets", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-policy-audit-'));
    const file = path.join(dir, 'managed.json');
    const secrets = ['org-client-secret-value', 'org-idp-secret-value'];
    fs.writeFileSync(
      file,
      JSON.stringify({
        oauth: {
          clients: { 'https://login.example.com': { clientId: 'wb', clientSecret: secrets[0] } },
          crossAppAccess: [
            { server: 'crm', idpIssuer: 'https://idp.example.com', idpClientId: 'c', idpClientSecret: secrets[1] },
          ],
        },
      }),
    );
    open('browser', file);
    const rows = await policyRows();
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]?.editedArgs ?? {})).toEqual(
      expect.arrayContaining(['oauth/clients/https:~1~1login.example.com/clientSecret', 'oauth/crossAppAccess']),
    );
    // Neither the row nor the snapshot the next start compares with holds a secret.
    const data = path.join(dir, 'data');
    const database = fs
      .readdirSync(data)
      .filter((name) => name.startsWith('workbench.db'))
      .map((name) => fs.readFileSync(path.join(data, name)).toString('latin1'))
      .join('\n');
    for (const secret of secrets) {
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(database).not.toContain(secret);
    }
  });
});
