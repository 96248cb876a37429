import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../shared/tool';
import { WorkbenchError } from '../errors';
import { createServices, type Services } from '../services';
import { changedTool, makeTool, recordingAuditLog, type RecordingAuditLog } from './testing/fixtures';

const readFile = makeTool('Files', 'read_file', { annotations: { readOnlyHint: true, title: 'Read file' } });
const writeFile = makeTool('Files', 'write_file');
const catalog = new Map<string, ToolDefinition>(
  [readFile, writeFile].map((tool) => [`${tool.serverName}/${tool.name}`, tool]),
);

let dir: string;
let audit: RecordingAuditLog;
let services: Services;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-gate-'));
  audit = recordingAuditLog();
  services = createServices({
    dataDir: dir,
    host: 'cli',
    version: '0',
    managedPolicyFile: null,
    audit,
    tools: { find: (server, tool) => catalog.get(`${server}/${tool}`) },
  });
});
afterEach(() => {
  services.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const call = (tool: ToolDefinition, toolCallId: string, args: Record<string, unknown> = {}) => ({
  toolCallId,
  serverName: tool.serverName,
  toolName: tool.name,
  args,
});

describe('the approval gate', () => {
  it('returns the request for the card when it asks, and records nothing yet', () => {
    const chat = services.chats.create();
    const result = services.approvals.gate.evaluate(
      { chatId: chat.id, exchangeId: 'x' },
      call(readFile, 'c1', { path: '/a' }),
      readFile,
    );
    expect(result).toEqual({
      outcome: 'ask',
      decision: expect.objectContaining({ outcome: 'ask', source: { kind: 'global-setting', setting: 'ask' } }),
      request: {
        toolCallId: 'c1',
        serverName: 'Files',
        toolName: 'read_file',
        args: { path: '/a' },
        description: readFile.description,
        annotations: { readOnlyHint: true, title: 'Read file' },
        definitionHash: readFile.definitionHash,
        inputSchema: readFile.inputSchema,
        decision: result.decision,
      },
    });
    expect(audit.decisions).toEqual([]);
  });

  it('records an allow or deny decided without asking before it returns', () => {
    const chat = services.chats.create();
    services.approvals.policy.update({
      tools: { Files: { read_file: 'auto-approve' } },
      rules: {
        add: [
          {
            id: 'no-etc',
            effect: 'deny',
            server: 'Files',
            tool: 'write_*',
            args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
          },
        ],
      },
    });
    const allowed = services.approvals.gate.evaluate(
      { chatId: chat.id },
      call(readFile, 'r', { path: '/a' }),
      readFile,
    );
    const denied = services.approvals.gate.evaluate(
      { chatId: chat.id, exchangeId: 'x' },
      call(writeFile, 'w', { path: '/etc/passwd' }),
      writeFile,
    );
    expect([allowed.outcome, denied.outcome]).toEqual(['allow', 'deny']);
    expect(audit.decisions).toEqual([
      {
        chatId: chat.id,
        exchangeId: undefined,
        toolCallId: 'r',
        serverName: 'Files',
        toolName: 'read_file',
        definitionHash: readFile.definitionHash,
        decision: 'auto_allow',
        actor: 'policy',
        decidedBy: "Auto-approved: tool setting 'Files.read_file'",
        args: { path: '/a' },
      },
      {
        chatId: chat.id,
        exchangeId: 'x',
        toolCallId: 'w',
        serverName: 'Files',
        toolName: 'write_file',
        definitionHash: writeFile.definitionHash,
        decision: 'auto_deny',
        actor: 'policy',
        decidedBy: 'Denied by your rule #1: Files write_* when /path matches /etc/**',
        args: { path: '/etc/passwd' },
      },
    ]);
  });

  it("uses the chat's grant (recorded as session_grant) until the tool changes", () => {
    const chat = services.chats.create();
    const first = services.approvals.gate.evaluate({ chatId: chat.id }, call(writeFile, 'first'), writeFile);
    if (first.outcome !== 'ask') throw new Error('expected ask');
    services.approvals.pending.add(chat.id, undefined, [first.request]);
    services.approvals.pending.submit(chat.id, [{ toolCallId: 'first', decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' }]);
    const again = services.approvals.gate.evaluate({ chatId: chat.id }, call(writeFile, 'second'), writeFile);
    expect(again.decision.source.kind).toBe('chat-grant');
    expect(audit.decisions.at(-1)).toMatchObject({ toolCallId: 'second', decision: 'session_grant', actor: 'policy' });
    const changed = changedTool(writeFile);
    const afterChange = services.approvals.gate.evaluate({ chatId: chat.id }, call(changed, 'third'), changed);
    expect(afterChange.outcome).toBe('ask');
    expect(afterChange.decision.definitionChanged).toBe(true);
    // Another chat never sees this chat's grant.
    const other = services.chats.create();
    expect(services.approvals.gate.decide(other.id, call(writeFile, 'x'), writeFile).outcome).toBe('ask');
  });

  it("follows the chat's mode", () => {
    const chat = services.chats.create();
    services.approvals.chats.setMode(chat.id, 'never-ask');
    expect(services.approvals.gate.decide(chat.id, call(writeFile, 'x'), writeFile).source).toEqual({
      kind: 'chat-mode',
      setting: 'never-ask',
    });
    services.approvals.policy.update({ servers: { Files: { autoApprove: true } } });
    services.approvals.chats.setMode(chat.id, 'always-ask');
    expect(services.approvals.gate.decide(chat.id, call(writeFile, 'x'), writeFile).source).toEqual({
      kind: 'chat-mode',
      setting: 'always-ask',
    });
  });

  it('refuses a definition that is not the called tool', () => {
    const chat = services.chats.create();
    expect(() => services.approvals.gate.evaluate({ chatId: chat.id }, call(readFile, 'c'), writeFile)).toThrow(
      /was given for a call of Files\.read_file/,
    );
  });

  it('explains with the tool from the catalog, or says it is unknown', () => {
    const chat = services.chats.create();
    services.approvals.policy.update({ mode: 'auto-approve-read-only-trusted' });
    services.mcpServers.edit({ name: 'Files', trusted: true });
    const known = services.approvals.gate.explain({ server: 'Files', tool: 'read_file', chatId: chat.id });
    expect(known).toMatchObject({ outcome: 'allow', toolKnown: true, source: { kind: 'trusted-read-only' } });
    const unknown = services.approvals.gate.explain({ server: 'Files', tool: 'delete_all' });
    expect(unknown).toMatchObject({ outcome: 'ask', toolKnown: false, source: { kind: 'default' } });
    expect(unknown.considered.find((step) => step.kind === 'trusted-read-only')?.detail).toBe(
      'The tool Files.delete_all is not known now, so its annotations cannot be read.',
    );
    expect(() =>
      services.approvals.gate.explain({
        server: 'Files',
        tool: 'read_file',
        chatId: '00000000-0000-4000-8000-000000000000',
      }),
    ).toThrow(WorkbenchError);
  });
});

describe("chats never see each other's grants (with the real store)", () => {
  it('a grant in one chat never changes a decision in another', () => {
    const tools = [readFile, writeFile, makeTool('Web', 'fetch')];
    const chats = [services.chats.create().id, services.chats.create().id, services.chats.create().id];
    let sequence = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 0, max: 2 })), { maxLength: 6 }),
        fc.integer({ min: 0, max: 2 }),
        (grants, probe) => {
          const tool = tools[probe] as ToolDefinition;
          const before = services.approvals.gate.decide(chats[0] as string, call(tool, 'p'), tool);
          for (const [chatIndex, toolIndex] of grants) {
            const chatId = chats[chatIndex] as string;
            const granted = tools[toolIndex] as ToolDefinition;
            const id = `g${++sequence}`;
            const result = services.approvals.gate.evaluate({ chatId }, call(granted, id), granted);
            // Granted in that chat already.
            if (result.outcome !== 'ask') continue;
            services.approvals.pending.add(chatId, undefined, [result.request]);
            services.approvals.pending.submit(chatId, [
              { toolCallId: id, decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' },
            ]);
          }
          expect(services.approvals.gate.decide(chats[0] as string, call(tool, 'p'), tool)).toEqual(before);
          expect(services.approvals.chats.grants(chats[0])).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("a server's trust: mcpServers.<name>.trusted, and only there", () => {
  it('decides by the migrated trust of a version 1 settings file, and by mcp.edit afterwards', () => {
    const oldDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-gate-v1-'));
    try {
      fs.writeFileSync(
        path.join(oldDir, 'settings.json'),
        JSON.stringify({
          version: 1,
          approvals: { mode: 'auto-approve-read-only-trusted', servers: { Files: { trustAnnotations: true } } },
        }),
      );
      const old = createServices({
        dataDir: oldDir,
        host: 'cli',
        version: '0',
        managedPolicyFile: null,
        audit,
        tools: { find: (server, tool) => catalog.get(`${server}/${tool}`) },
      });
      try {
        expect(old.settings.migration).toMatchObject({ from: 1, to: 2 });
        expect(old.mcpServers.get('Files').trusted).toBe(true);
        expect(old.approvals.policy.view().policy.servers).toEqual({});
        // Written before the app recorded what a server runs: its trust counts once the person accepted it
        // (docs/user/approvals.md, "A server added outside the app").
        expect(old.approvals.gate.explain({ server: 'Files', tool: 'read_file' })).toMatchObject({
          outcome: 'ask',
          identityChanged: { unrecorded: true },
        });
        old.mcpServers.edit({ name: 'Files', acceptIdentity: true });
        expect(old.approvals.gate.explain({ server: 'Files', tool: 'read_file' })).toMatchObject({
          outcome: 'allow',
          source: { kind: 'trusted-read-only' },
        });
        old.mcpServers.edit({ name: 'Files', trusted: false });
        expect(old.approvals.gate.explain({ server: 'Files', tool: 'read_file' })).toMatchObject({
          outcome: 'ask',
          source: { kind: 'default' },
        });
      } finally {
        old.close();
      }
    } finally {
      fs.rmSync(oldDir, { recursive: true, force: true });
    }
  });

  it("a server's approval settings never make its annotations count", () => {
    services.approvals.policy.update({
      mode: 'auto-approve-read-only-trusted',
      servers: { Files: { autoApprove: false } },
    });
    expect(services.approvals.gate.explain({ server: 'Files', tool: 'read_file' })).toMatchObject({ outcome: 'ask' });
    services.mcpServers.edit({ name: 'Files', trusted: true });
    expect(services.approvals.gate.explain({ server: 'Files', tool: 'read_file' })).toMatchObject({
      outcome: 'allow',
      source: { kind: 'trusted-read-only' },
    });
  });
});
