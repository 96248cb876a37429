import type { ApprovalPolicy, ApprovalRule, ChatApprovalMode, ChatGrant } from '../../shared/approval';
import { canonicalJson } from '../../shared/canonical-json';
import type { PolicyChangeActor, PolicyChangeRecord } from '../audit/audit-log';

/**
 * The audit log's policy rows (docs/user/audit-log.md): what changed, as the values before and after keyed by the same
 * names, and a line a person reads. Pure; the policy service, the chat approvals and the pending store record them.
 */

/** A name inside a key, escaped as in a JSON Pointer (RFC 6901), so `tools/a~1b/c` cannot be misread. */
const part = (name: string): string => name.replaceAll('~', '~0').replaceAll('/', '~1');

/** A policy flattened to one entry per setting: `mode`, `timeoutSeconds`, `servers/<s>`, `tools/<s>/<t>`, `rules/<id>`, `ruleOrder`. */
export function policyEntries(policy: Partial<ApprovalPolicy>): Map<string, unknown> {
  const entries = new Map<string, unknown>();
  if (policy.mode !== undefined) entries.set('mode', policy.mode);
  if (policy.timeoutSeconds !== undefined) entries.set('timeoutSeconds', policy.timeoutSeconds);
  for (const [server, settings] of Object.entries(policy.servers ?? {}))
    entries.set(`servers/${part(server)}`, settings);
  for (const [server, byTool] of Object.entries(policy.tools ?? {})) {
    for (const [tool, setting] of Object.entries(byTool)) entries.set(`tools/${part(server)}/${part(tool)}`, setting);
  }
  for (const rule of policy.rules ?? []) entries.set(`rules/${part(rule.id)}`, rule);
  if (policy.rules && policy.rules.length > 1)
    entries.set(
      'ruleOrder',
      policy.rules.map((rule) => rule.id),
    );
  return entries;
}

/** The entries that differ, before and after (null where one side has none). */
export function diffEntries(
  before: Map<string, unknown>,
  after: Map<string, unknown>,
): { before: Record<string, unknown>; after: Record<string, unknown>; keys: string[] } {
  const keys = [...new Set([...before.keys(), ...after.keys()])].filter(
    (key) => canonicalJson(before.get(key) ?? null) !== canonicalJson(after.get(key) ?? null),
  );
  // A rule added or removed changes the order too; the order is worth a row only when the same rules were moved.
  if (keys.includes('ruleOrder') && keys.some((key) => key.startsWith('rules/')))
    keys.splice(keys.indexOf('ruleOrder'), 1);
  return {
    before: Object.fromEntries(keys.map((key) => [key, before.get(key) ?? null])),
    after: Object.fromEntries(keys.map((key) => [key, after.get(key) ?? null])),
    keys,
  };
}

const shown = (value: unknown): string =>
  value === null || value === undefined ? 'not set' : typeof value === 'string' ? value : JSON.stringify(value);

function describeKey(key: string, before: unknown, after: unknown): string {
  const [head, ...rest] = key.split('/');
  const name = rest.map((text) => text.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');
  if (head === 'rules') {
    const rule = (after ?? before) as ApprovalRule;
    const what = `${rule.effect} ${rule.server} ${rule.tool}`;
    if (before === null) return `rule '${name}' added (${what})`;
    if (after === null) return `rule '${name}' removed (${what})`;
    return `rule '${name}' changed (${what})`;
  }
  if (head === 'ruleOrder') return 'rule order changed';
  if (head === 'mode') return `global mode: ${shown(before)} → ${shown(after)}`;
  if (head === 'timeoutSeconds') return `approval timeout: ${shown(before)} → ${shown(after)} s`;
  if (head === 'servers') {
    const value = (setting: unknown): string => {
      if (setting === null) return 'ask';
      const { autoApprove, sampling, samplingTokenBudget } = setting as {
        autoApprove: boolean;
        sampling?: string;
        samplingTokenBudget?: number;
      };
      const extra = [
        sampling !== undefined ? `sampling ${sampling}` : '',
        samplingTokenBudget !== undefined ? `budget ${samplingTokenBudget} tokens` : '',
      ].filter(Boolean);
      return [autoApprove ? 'auto-approve' : 'ask', ...extra].join(', ');
    };
    return `server '${name}': ${value(before)} → ${value(after)}`;
  }
  if (head === 'tools')
    return `tool ${name}: ${before === null ? 'inherit' : shown(before)} → ${after === null ? 'inherit' : shown(after)}`;
  return `${key}: ${shown(before)} → ${shown(after)}`;
}

/** "Approval policy: global mode: ask → never-ask; rule 'x' added (deny * write_*)", at most three parts named. */
export function describeChanges(
  prefix: string,
  keys: readonly string[],
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string {
  const parts = keys.slice(0, 3).map((key) => describeKey(key, before[key] ?? null, after[key] ?? null));
  const more = keys.length > 3 ? ` (and ${keys.length - 3} more)` : '';
  return `${prefix}: ${parts.join('; ')}${more}`;
}

/** The row for a change of the person's approval policy; null when nothing changed. */
export function approvalPolicyChange(
  before: Partial<ApprovalPolicy>,
  after: Partial<ApprovalPolicy>,
  actor: PolicyChangeActor,
  prefix = 'Approval policy',
): PolicyChangeRecord | null {
  const diff = diffEntries(policyEntries(before), policyEntries(after));
  if (diff.keys.length === 0) return null;
  return {
    actor,
    summary: describeChanges(prefix, diff.keys, diff.before, diff.after),
    before: diff.before,
    after: diff.after,
  };
}

export function chatModeChange(
  chatId: string,
  before: ChatApprovalMode,
  after: ChatApprovalMode,
  actor: PolicyChangeActor,
): PolicyChangeRecord | null {
  if (before === after) return null;
  return {
    actor,
    summary: `Chat mode: ${before} → ${after}`,
    chatId,
    before: { chatMode: before },
    after: { chatMode: after },
  };
}

/** The definition hash has its own column in the row. */
const grantValue = (grant: ChatGrant): Record<string, unknown> => ({
  grantedAt: new Date(grant.grantedAt).toISOString(),
});

/** "Allow for this chat" chosen on a card: the tool runs without asking in this chat while its definition stays the same. */
export function grantChange(grant: ChatGrant, actor: PolicyChangeActor): PolicyChangeRecord {
  return {
    actor,
    summary: `Allowed ${grant.serverName}.${grant.toolName} for this chat`,
    chatId: grant.chatId,
    serverName: grant.serverName,
    toolName: grant.toolName,
    definitionHash: grant.definitionHash,
    before: { grant: null },
    after: { grant: grantValue(grant) },
  };
}

export function revokeChange(grant: ChatGrant, actor: PolicyChangeActor): PolicyChangeRecord {
  return {
    actor,
    summary: `Revoked "Allow for this chat" of ${grant.serverName}.${grant.toolName}`,
    chatId: grant.chatId,
    serverName: grant.serverName,
    toolName: grant.toolName,
    definitionHash: grant.definitionHash,
    before: { grant: grantValue(grant) },
    after: { grant: null },
  };
}

/** One row per server whose trust (`mcpServers.<name>.trusted`) changed. */
export function trustChanges(
  before: readonly string[],
  after: readonly string[],
  actor: PolicyChangeActor,
): PolicyChangeRecord[] {
  const was = new Set(before);
  const is = new Set(after);
  const changed = [...new Set([...before, ...after])].filter((name) => was.has(name) !== is.has(name)).sort();
  return changed.map((serverName) => ({
    actor,
    summary: `Server '${serverName}' ${is.has(serverName) ? 'annotations trusted (its read-only hints may count)' : 'annotations no longer trusted'}`,
    serverName,
    before: { trusted: was.has(serverName) },
    after: { trusted: is.has(serverName) },
  }));
}
