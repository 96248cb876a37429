import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyView } from '../../shared/approval';
import { createEventHub } from '../event-hub';
import { openSettingsStore, SettingsError } from '../settings/settings-store';
import { decide } from './policy/decision-pipeline';
import { createPolicyService, openApprovalSettings, type PolicyService } from './policy-service';
import { makeTool, recordingAuditLog, refusal, type RecordingAuditLog } from './testing/fixtures';
import type { TrustedServers } from './trusted-servers';

let dir: string;
let file: string;
let views: PolicyView[];
let audit: RecordingAuditLog;

/** What the MCP settings would say: a list of trusted names that a test changes, and the listeners to tell. */
function trustedServers(initial: string[] = []): TrustedServers & { set(names: string[]): void } {
  let names = initial;
  const listeners = new Set<() => void>();
  return {
    names: () => names,
    onDidChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next) {
      names = next;
      for (const listener of listeners) listener();
    },
  };
}

function open(
  managed: Parameters<typeof createPolicyService>[1] = null,
  trusted: TrustedServers = trustedServers(),
): PolicyService {
  const events = createEventHub();
  events.subscribe((event, payload) => {
    if (event === 'policy.onDidChange') views.push(payload as PolicyView);
  });
  return createPolicyService(openApprovalSettings(openSettingsStore(file)), managed, events, trusted, {
    audit,
    actor: 'user',
  });
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-policy-'));
  file = path.join(dir, 'settings.json');
  views = [];
  audit = recordingAuditLog();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the policy service', () => {
  it('starts with asking for everything and writes nothing until something changes', () => {
    const service = open();
    expect(service.view()).toEqual({
      policy: { mode: 'ask', timeoutSeconds: 300, servers: {}, tools: {}, rules: [] },
      managed: null,
      warnings: [],
    });
    expect(fs.existsSync(file)).toBe(false);
  });

  it('saves partial changes in the approvals section, announces them and decides by them at once', () => {
    const service = open();
    const tool = makeTool('Files', 'read_file');
    const decideRead = () =>
      decide({ call: { serverName: 'Files', toolName: 'read_file', args: {} }, tool }, service.compiled());
    expect(decideRead().outcome).toBe('ask');
    service.update({ servers: { Files: { autoApprove: true } }, timeoutSeconds: 0 });
    expect(decideRead().source.kind).toBe('server-setting');
    service.update({ tools: { Files: { read_file: 'always-ask' } } });
    expect(decideRead().source.kind).toBe('tool-setting');

    // Only the settings the person changed are written: the others keep following the defaults (the organisation's, then ours).
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { approvals: unknown };
    expect(saved.approvals).toEqual({
      timeoutSeconds: 0,
      servers: { Files: { autoApprove: true } },
      tools: { Files: { read_file: 'always-ask' } },
    });
    expect(views).toHaveLength(2);
    expect(views[1]?.policy.tools).toEqual({ Files: { read_file: 'always-ask' } });
    // A new start reads what was saved.
    expect(open().view().policy).toEqual({ mode: 'ask', rules: [], ...(saved.approvals as object) });
  });

  it("forgets a server set to null and a tool set to 'inherit'", () => {
    const service = open();
    service.update({
      servers: { Files: { autoApprove: true }, Web: { autoApprove: true } },
      tools: { Files: { a: 'auto-approve', b: 'always-ask' } },
    });
    service.update({ servers: { Files: {} } });
    expect(service.view().policy.servers.Files).toEqual({ autoApprove: true });
    service.update({ servers: { Web: null }, tools: { Files: { a: 'inherit', b: 'inherit' } } });
    expect(service.view().policy).toMatchObject({ servers: { Files: { autoApprove: true } }, tools: {} });
    service.update({ servers: { Files: { autoApprove: false } } });
    expect(service.view().policy.servers).toEqual({});
  });

  it('refuses the old per-server trust key, saying where trust lives now, and saves nothing', () => {
    const service = open();
    service.update({ mode: 'auto-approve-read-only-trusted' });
    const before = fs.readFileSync(file, 'utf8');
    const error = refusal(() => service.update({ servers: { Files: { trustAnnotations: true } } } as never));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe(
      "The approval policy was not changed: servers.Files.trustAnnotations: a server's trust is no longer an approval setting: it is `mcpServers.<name>.trusted` in settings.json, changed with mcp.edit { name, trusted }.",
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('takes the trusted servers from the MCP settings, and recompiles when they change', () => {
    const trusted = trustedServers();
    const service = open(null, trusted);
    service.update({ mode: 'auto-approve-read-only-trusted' });
    const tool = makeTool('Files', 'read_file', { annotations: { readOnlyHint: true } });
    const decideRead = () =>
      decide({ call: { serverName: 'Files', toolName: 'read_file', args: {} }, tool }, service.compiled());
    expect(decideRead().outcome).toBe('ask');
    const announced = views.length;
    trusted.set(['Files']);
    expect(decideRead()).toMatchObject({ outcome: 'allow', source: { kind: 'trusted-read-only' } });
    expect(views).toHaveLength(announced + 1);
    // The same names again: nothing to recompile or announce.
    trusted.set(['Files']);
    expect(views).toHaveLength(announced + 1);
    trusted.set([]);
    expect(decideRead().outcome).toBe('ask');
  });

  it("applies a change to the policy as the file holds it, keeping another process's change", () => {
    const app = open();
    const cli = open();
    cli.update({ rules: { add: [{ id: 'from-cli', effect: 'deny', server: '*', tool: 'rm' }] } });
    app.update({ mode: 'auto-approve-read-only-trusted' });
    expect(app.view().policy).toMatchObject({ mode: 'auto-approve-read-only-trusted', rules: [{ id: 'from-cli' }] });
    expect(open().view().policy).toMatchObject({ mode: 'auto-approve-read-only-trusted', rules: [{ id: 'from-cli' }] });
    // A rule id the other process already took is refused against the fresh policy.
    expect(
      refusal(() => app.update({ rules: { add: [{ id: 'from-cli', effect: 'ask', server: '*', tool: '*' }] } }))
        .message,
    ).toContain("a rule with the id 'from-cli' exists already");
  });

  it('adds, updates, removes and reorders rules', () => {
    const service = open();
    service.update({
      rules: {
        add: [
          { id: 'a', effect: 'deny', server: '*', tool: 'rm' },
          { effect: 'allow', server: 'Files', tool: 'read_*' },
        ],
      },
    });
    const [first, second] = service.view().policy.rules;
    expect(first?.id).toBe('a');
    expect(second?.id).toMatch(/^rule-[0-9a-f]{8}$/);
    service.update({ rules: { add: [{ id: 'top', effect: 'ask', server: '*', tool: '*' }], index: 0 } });
    expect(service.view().policy.rules.map((rule) => rule.id)).toEqual(['top', 'a', second?.id]);
    service.update({
      rules: {
        update: [{ id: 'a', effect: 'deny', server: 'Shell', tool: 'rm', note: 'never' }],
        order: ['a', second?.id as string, 'top'],
      },
    });
    expect(service.view().policy.rules.map((rule) => rule.id)).toEqual(['a', second?.id, 'top']);
    expect(service.view().policy.rules[0]).toEqual({
      id: 'a',
      effect: 'deny',
      server: 'Shell',
      tool: 'rm',
      note: 'never',
    });
    service.update({ rules: { remove: ['top', 'a'] } });
    expect(service.view().policy.rules.map((rule) => rule.id)).toEqual([second?.id]);
  });

  it('refuses a bad glob, naming the rule by number and id and the field, and saves nothing', () => {
    const service = open();
    service.update({ rules: { add: [{ id: 'ok', effect: 'allow', server: '*', tool: 'read_*' }] } });
    const before = fs.readFileSync(file, 'utf8');
    const error = refusal(() =>
      service.update({
        mode: 'never-ask',
        rules: { add: [{ id: 'bad', effect: 'deny', server: 'Files', tool: 'write_[' }] },
      }),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(
      /^The approval policy was not changed: Rule #2 \('bad'\), tool: is not a valid glob: Missing closing: "\]"/,
    );
    expect(error.details).toMatchObject({ problems: [{ ruleId: 'bad', ruleNumber: 2, field: 'tool' }] });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(service.view().policy.mode).toBe('ask');
  });

  it('refuses a catastrophic or over-long regex and a bad pointer', () => {
    const service = open();
    const catastrophic = refusal(() =>
      service.update({
        rules: {
          add: [
            {
              id: 'redos',
              effect: 'deny',
              server: '*',
              tool: '*',
              args: [{ pointer: '/q', match: 'regex', value: '(a+)+$' }],
            },
          ],
        },
      }),
    );
    expect(catastrophic.message).toContain(
      "Rule #1 ('redos'), args[0].value: repeats a group that itself repeats or has alternatives ((a+)+)",
    );
    const long = refusal(() =>
      service.update({
        rules: {
          add: [
            {
              id: 'long',
              effect: 'deny',
              server: '*',
              tool: '*',
              args: [{ pointer: '/q', match: 'regex', value: 'x'.repeat(300) }],
            },
          ],
        },
      }),
    );
    expect(long.message).toContain('args[0].value: is 300 characters long; at most 256 are allowed');
    const pointer = refusal(() =>
      service.update({
        rules: {
          add: [
            {
              id: 'ptr',
              effect: 'deny',
              server: '*',
              tool: '*',
              args: [{ pointer: 'path', match: 'glob', value: '/etc/**' }],
            },
          ],
        },
      }),
    );
    expect(pointer.message).toContain('Rule #1 (\'ptr\'), args[0].pointer: must start with "/"');
    expect(service.view().policy.rules).toEqual([]);
  });

  it('refuses unknown ids, duplicate ids and an order that is not a permutation', () => {
    const service = open();
    service.update({
      rules: {
        add: [
          { id: 'a', effect: 'deny', server: '*', tool: 'x' },
          { id: 'b', effect: 'deny', server: '*', tool: 'y' },
        ],
      },
    });
    expect(refusal(() => service.update({ rules: { remove: ['nope'] } })).message).toContain(
      "no rule has the id 'nope' (remove)",
    );
    expect(
      refusal(() => service.update({ rules: { update: [{ id: 'nope', effect: 'ask', server: '*', tool: '*' }] } }))
        .message,
    ).toContain("no rule has the id 'nope' (update)");
    expect(
      refusal(() => service.update({ rules: { add: [{ id: 'a', effect: 'ask', server: '*', tool: '*' }] } })).message,
    ).toContain("a rule with the id 'a' exists already");
    expect(refusal(() => service.update({ rules: { order: ['a'] } })).message).toContain("missing 'b'");
    expect(refusal(() => service.update({ rules: { order: ['a', 'b', 'c'] } })).message).toContain("unknown 'c'");
    expect(refusal(() => service.update({ rules: { order: ['a', 'a', 'b'] } })).message).toContain(
      'an id listed twice',
    );
    expect(service.view().policy.rules.map((rule) => rule.id)).toEqual(['a', 'b']);
  });

  it('warns when approvals are off and about servers that bypass approval', () => {
    const service = open();
    service.update({ mode: 'never-ask', servers: { Shell: { autoApprove: true } } });
    expect(service.view().warnings).toEqual([
      {
        kind: 'approvals-off',
        message: 'Approvals are off (never ask): tools run without asking you, unless a deny rule stops them.',
      },
      {
        kind: 'server-auto-approve',
        serverName: 'Shell',
        message:
          "Every tool of 'Shell' runs without asking you (server setting), except where a rule, the tool's own setting or the chat asks.",
      },
    ]);
  });

  it("shows the organisation's policy, and that it overrides 'never ask'", () => {
    const managed = {
      source: 'env' as const,
      file: '/etc/aiwb/policy.json',
      policy: {
        disallowNeverAsk: true,
        rules: [{ id: 'm', effect: 'deny' as const, server: '*', tool: 'rm' }],
        defaults: {},
        locked: {},
      },
    };
    const service = open(managed);
    service.update({ mode: 'never-ask' });
    expect(service.view().managed).toEqual({
      file: '/etc/aiwb/policy.json',
      source: 'env',
      disallowNeverAsk: true,
      rules: managed.policy.rules,
      defaults: {},
      locked: {},
      defaulted: [],
    });
    expect(service.view().warnings).toEqual([
      {
        kind: 'never-ask-ignored',
        message:
          "Approvals are off in your settings, but your organisation's policy requires them: AI Workbench asks anyway.",
      },
    ]);
  });
});

describe('the approvals settings section on disk', () => {
  it('stops the start naming the field when a saved rule is broken', () => {
    fs.writeFileSync(
      file,
      JSON.stringify({
        approvals: {
          rules: [
            { id: 'x', effect: 'deny', server: '*', tool: '*', args: [{ pointer: '/p', match: 'regex', value: '(' }] },
          ],
        },
      }),
    );
    expect(() => open()).toThrow(SettingsError);
    expect(() => open()).toThrow(/approvals\.rules\.0\.args\.0\.value: is not a valid regular expression/);
  });

  it('stops the start naming the field when a value has the wrong type or an unknown key', () => {
    fs.writeFileSync(
      file,
      JSON.stringify({
        approvals: { mode: 'sometimes', rules: [{ id: 'x', effect: 'deny', server: 5, tool: '*', args: 'no' }] },
      }),
    );
    expect(() => open()).toThrow(/approvals\.mode: .*approvals\.rules\.0\.server: .*approvals\.rules\.0\.args:/);
    fs.writeFileSync(file, JSON.stringify({ approvals: { servers: { Files: { autoAprove: true } } } }));
    expect(() => open()).toThrow(/approvals\.servers\.Files: Unrecognized key: "autoAprove"/);
  });
});
