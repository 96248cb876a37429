// The organisation's defaults and locks against every way a person could change a locked setting
// (docs/user/organisation-policy.md): the contract, settings.json edited on disk before the start and while it runs, a
// chat's mode, and "Allow for this chat" on a card. Through the dispatcher and the real services (SQLite, the Demo
// provider, the real Files server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PendingApproval, PolicyExplanation, PolicyView } from '../../shared/approval';
import type { AuditEntry } from '../../shared/audit';
import type { AuditShippingStatus } from '../../shared/audit-shipping';
import type { Envelope, WorkbenchErrorData } from '../../shared/errors';
import { sandboxDir } from '../settings/default-servers';
import { createServices, type Services } from '../services';
import { createDispatcher, type Dispatch } from './dispatcher';
import { createHandlers } from './handlers';

const ORGANISATION = {
  defaults: { timeoutSeconds: 600, rules: [{ id: 'list-ok', effect: 'allow', server: 'Files', tool: 'list_*' }] },
  locked: {
    mode: 'ask',
    servers: { Files: { autoApprove: false } },
    tools: { Files: { write_file: 'always-ask' } },
    rules: [{ id: 'ask-edits', effect: 'ask', server: 'Files', tool: 'edit_*' }],
    auditShipping: { sinks: [{ type: 'syslog', id: 'org-siem', host: '127.0.0.1', port: 9, enabled: false }] },
  },
};

let dir: string | undefined;
let services: Services | undefined;
let dispatch: Dispatch;
let onInternalError: ReturnType<typeof vi.fn<(error: unknown, method: string) => void>>;

afterEach(async () => {
  await stop();
  expect(onInternalError).not.toHaveBeenCalled();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function stop(): Promise<void> {
  if (!services) return;
  await services.conversations.dispose();
  await services.auditShipping.stop();
  await services.mcp.stop();
  services.close();
  services = undefined;
}

const home = (): string => dir as string;
const settingsFile = (): string => path.join(home(), 'data', 'settings.json');

async function start(settings?: unknown): Promise<Services> {
  dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-org-policy-'));
  const managedPolicyFile = path.join(home(), 'managed.json');
  fs.writeFileSync(managedPolicyFile, JSON.stringify(ORGANISATION));
  if (settings !== undefined) {
    fs.mkdirSync(path.join(home(), 'data'), { recursive: true });
    fs.writeFileSync(settingsFile(), JSON.stringify(settings));
  }
  const started = createServices({
    dataDir: path.join(home(), 'data'),
    host: 'browser',
    version: '0',
    managedPolicyFile,
  });
  services = started;
  onInternalError = vi.fn<(error: unknown, method: string) => void>();
  dispatch = createDispatcher(createHandlers(started), onInternalError);
  started.mcp.start();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { state, toolCount } = started.mcp.server('Files').status;
    if (state === 'ready' && toolCount > 0) return started;
    if (Date.now() > deadline) throw new Error(`The Files server did not become ready (state: ${state}).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function ok<T>(method: string, input?: unknown): Promise<T> {
  const envelope: Envelope = await dispatch(method, input);
  if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope.error)}`);
  return envelope.value as T;
}
async function failure(method: string, input?: unknown): Promise<WorkbenchErrorData> {
  const envelope = await dispatch(method, input);
  if (envelope.ok) throw new Error(`${method} answered ${JSON.stringify(envelope.value)}`);
  return envelope.error;
}
const explain = (tool: string, chatId?: string): Promise<PolicyExplanation> =>
  ok('policy.explain', { server: 'Files', tool, args: { path: 'a.txt', content: 'x' }, ...(chatId ? { chatId } : {}) });
const policyRows = async (): Promise<AuditEntry[]> =>
  (await ok<{ entries: AuditEntry[] }>('audit.query', { kind: 'policy' })).entries;

describe("the organisation's defaults and locks", () => {
  it('are in force and shown: locked values over the person, defaults where the person set nothing', async () => {
    await start();
    const view = await ok<PolicyView>('policy.get');
    expect(view.policy).toMatchObject({
      mode: 'ask',
      timeoutSeconds: 600,
      servers: { Files: { autoApprove: false } },
      tools: { Files: { write_file: 'always-ask' } },
      rules: [{ id: 'list-ok' }],
    });
    expect(view.managed).toMatchObject({
      source: 'env',
      locked: ORGANISATION.locked,
      defaulted: ['timeoutSeconds', 'rules'],
    });
    expect((await explain('list_directory')).source).toMatchObject({ kind: 'allow-rule', ruleId: 'list-ok' });
    expect((await explain('edit_file')).reason).toMatch(/^Asked because of your organisation's rule 'ask-edits'/);
    // Locked sinks ship whatever the person's settings say (and even when the file says enabled: false).
    const status = await ok<AuditShippingStatus>('audit.shippingStatus');
    expect(status.sinks).toMatchObject([{ id: 'org-siem', origin: 'managed', enabled: true }]);
  });

  it("refuses policy.update of a locked setting with the code 'locked' and the organisation's words; nothing is saved or recorded", async () => {
    await start();
    for (const change of [
      { mode: 'never-ask' },
      { tools: { Files: { write_file: 'auto-approve' } } },
      { tools: { Files: { write_file: 'inherit' } } },
      { servers: { Files: { autoApprove: true } } },
      { servers: { Files: null } },
      // A change that also touches an unlocked setting is refused whole.
      { timeoutSeconds: 30, mode: 'auto-approve-read-only-trusted' },
    ]) {
      const error = await failure('policy.update', change);
      expect(error.code, JSON.stringify(change)).toBe('locked');
      expect(error.message).toMatch(
        /^Set by your organisation: .* cannot be changed \(.*managed\.json\)\. The approval policy was not changed\.$/,
      );
    }
    expect(
      fs.existsSync(settingsFile()) && 'approvals' in (JSON.parse(fs.readFileSync(settingsFile(), 'utf8')) as object),
    ).toBe(false);
    expect(await policyRows()).toHaveLength(1); // the organisation's file, first seen
    // The same value as the lock, and the organisation's defaults, may be set.
    await ok('policy.update', { mode: 'ask', timeoutSeconds: 30 });
    const view = await ok<PolicyView>('policy.get');
    expect(view.policy.timeoutSeconds).toBe(30);
    expect(view.managed?.defaulted).toEqual(['rules']);
  });

  it('holds against settings.json edited by hand, before the start and while the app runs', async () => {
    await start({
      version: 2,
      approvals: {
        mode: 'never-ask',
        tools: { Files: { write_file: 'auto-approve' } },
        servers: { Files: { autoApprove: true } },
      },
    });
    expect((await ok<PolicyView>('policy.get')).policy).toMatchObject({
      mode: 'ask',
      tools: { Files: { write_file: 'always-ask' } },
      servers: { Files: { autoApprove: false } },
    });
    expect((await explain('write_file')).outcome).toBe('ask');
    expect((await explain('read_file')).outcome).toBe('ask');
    // Edited while it runs, then picked up by the next change (which re-reads the file): the locks still lie over it.
    const edited = JSON.parse(fs.readFileSync(settingsFile(), 'utf8')) as { approvals: Record<string, unknown> };
    edited.approvals = {
      mode: 'never-ask',
      tools: { Files: { write_file: 'auto-approve', read_file: 'auto-approve' } },
    };
    fs.writeFileSync(settingsFile(), JSON.stringify(edited));
    await ok('policy.update', { timeoutSeconds: 10 });
    expect((await ok<PolicyView>('policy.get')).policy).toMatchObject({
      mode: 'ask',
      tools: { Files: { write_file: 'always-ask', read_file: 'auto-approve' } },
    });
    expect((await explain('write_file')).outcome).toBe('ask');
    expect((await explain('read_file')).outcome).toBe('allow');
  });

  it("holds against a chat set to 'never ask' and 'Allow for this chat' on a card: the locked tool keeps asking and nothing runs unasked", async () => {
    const started = await start();
    const chatId = (await ok<{ id: string }>('chat.create', {})).id;
    await ok('approvals.setChatMode', { chatId, mode: 'never-ask' });
    expect((await explain('read_file', chatId)).reason).toBe(
      "Asked: your organisation's policy does not allow turning approvals off, so 'never ask' is ignored",
    );
    await ok('approvals.setChatMode', { chatId, mode: 'use-tool-settings' });

    await ok('chat.send', { chatId, message: { role: 'user', text: 'write first.txt: one' } });
    expect(await started.conversations.settled(chatId)).toMatchObject({ status: 'waiting-approval' });
    const [first] = (await ok<{ approvals: PendingApproval[] }>('approvals.pending', { chatId })).approvals;
    expect(first?.request.decision.keepsAsking).toContain("the tool setting 'Files.write_file' is 'Always ask'");
    await ok('chat.send', {
      chatId,
      message: {
        role: 'approval',
        toolCallApprovals: [{ toolCallId: first?.request.toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' }],
      },
    });
    await started.conversations.settled(chatId);
    expect(fs.existsSync(path.join(sandboxDir(path.join(home(), 'data')), 'first.txt'))).toBe(true);

    // Later, the grant is inert for the locked tool: the next write waits for the person again.
    await ok('chat.send', { chatId, message: { role: 'user', text: 'write second.txt: two' } });
    expect(await started.conversations.settled(chatId)).toMatchObject({ status: 'waiting-approval' });
    expect(fs.existsSync(path.join(sandboxDir(path.join(home(), 'data')), 'second.txt'))).toBe(false);
    expect((await explain('write_file', chatId)).outcome).toBe('ask');
  });
});
