import type {
  ChatApprovalMode,
  ChatGrant,
  ConsideredStep,
  DecisionOutcome,
  DecisionSource,
  DecisionSourceKind,
  PolicyDecision,
} from '../../shared/approval';
import type { ToolDefinition } from '../../shared/tool';
import type { CompiledPolicy } from './compiled-policy';
import { clockTime, reasons } from './decision-reasons';
import { argumentsMatch, type CompiledRule } from './rule-compiler';

/** What the pipeline knows of the chat: its mode and its own grants (another chat's grants are never passed, and ignored if they were). */
export interface ChatApprovalState {
  readonly id: string;
  readonly mode: ChatApprovalMode;
  readonly grants: readonly ChatGrant[];
}

export interface DecisionInput {
  readonly call: { readonly serverName: string; readonly toolName: string; readonly args: Record<string, unknown> };
  /** The tool's current definition; without it, annotations and chat grants cannot apply. */
  readonly tool?: ToolDefinition | undefined;
  /** Without a chat (explaining a call in general), the chat steps are passed over. */
  readonly chat?: ChatApprovalState | undefined;
}

export const NO_CHAT_MODE: ChatApprovalMode = 'use-tool-settings';

/**
 * The decision pipeline of docs/dev/architecture.md "The decision pipeline": pure, first match wins, always with a reason.
 *  1. deny rules, the organisation's first — nothing overrides them
 *  2. approvals off (unless the organisation forbids it) → allow
 *  3. this chat's grant, while the tool's definition hash is unchanged → allow
 *  4. the chat's mode: never ask → allow (unless forbidden), always ask → ask
 *  5. ask rules, then allow rules
 *  6. tool setting > server setting (auto-approve, seed 003's bypass)
 *  7. read-only by the annotations of a server you trust, in that global mode → allow
 *  8. otherwise ask
 * With `trace`, every step it looked at is appended (for `explain`); without, nothing is built.
 */
export function decide(input: DecisionInput, policy: CompiledPolicy, trace?: ConsideredStep[]): PolicyDecision {
  const { serverName, toolName, args } = input.call;
  const { tool, chat } = input;
  const candidates = policy.candidates(serverName, toolName);
  const name = trace ? `${serverName}.${toolName}` : '';
  // No closures here: this runs for every tool call, and a closure per call is measurable.
  let changedGrant: ChatGrant | undefined;

  // 1. Deny rules.
  const managedDeny = firstMatch(candidates.managedDeny, args);
  if (managedDeny) return finish(trace, changedGrant, 'deny', ruleSource('managed-deny-rule', managedDeny), reasons.managedDeny(managedDeny), 1);
  if (trace && policy.managed) note(trace, 1, 'managed-deny-rule', 'passed', `No rule of your organisation's policy denies ${name}.`);
  const deny = firstMatch(candidates.deny, args);
  if (deny) return finish(trace, changedGrant, 'deny', ruleSource('deny-rule', deny), reasons.deny(deny), 1);
  if (trace) note(trace, 1, 'deny-rule', 'passed', `None of your deny rules matches ${name}${describeArgsChecked(candidates.deny.length)}.`);

  // 2. Approvals off.
  const { mode } = policy.policy;
  let neverAskIgnored = false;
  if (mode === 'never-ask') {
    if (policy.neverAskAllowed) return finish(trace, changedGrant, 'allow', { kind: 'approvals-off', setting: mode }, reasons.approvalsOff(), 2);
    neverAskIgnored = true;
    if (trace) note(trace, 2, 'approvals-off', 'ignored', "Approvals are off in your settings, but your organisation's policy requires approvals: ignored.");
  } else if (trace) {
    note(trace, 2, 'approvals-off', 'passed', 'Approvals are on.');
  }

  // 3. This chat's grant, bound to the definition the person saw.
  const grant = chat && findGrant(chat, serverName, toolName);
  if (grant && tool && grant.definitionHash === tool.definitionHash) {
    return finish(trace, changedGrant, 'allow', { kind: 'chat-grant', serverName, toolName, grantedAt: grant.grantedAt }, reasons.chatGrant(grant), 3);
  }
  if (grant && tool) {
    changedGrant = grant;
    if (trace) note(trace, 3, 'chat-grant', 'ignored', `You allowed ${name} for this chat at ${clockTime(grant.grantedAt)}, but the tool changed since: it is asked about again.`);
  } else if (trace) {
    note(trace, 3, 'chat-grant', grant ? 'ignored' : 'passed', grantDetail(name, chat !== undefined, grant !== undefined));
  }

  // 4. The chat's mode.
  const chatMode = chat?.mode ?? NO_CHAT_MODE;
  if (chatMode === 'never-ask') {
    if (policy.neverAskAllowed) return finish(trace, changedGrant, 'allow', { kind: 'chat-mode', setting: chatMode }, reasons.chatNeverAsk(), 4);
    neverAskIgnored = true;
    if (trace) note(trace, 4, 'chat-mode', 'ignored', "This chat is set to 'Never ask', but your organisation's policy requires approvals: ignored.");
  } else if (chatMode === 'always-ask') {
    return finish(trace, changedGrant, 'ask', { kind: 'chat-mode', setting: chatMode }, reasons.chatAlwaysAsk(), 4);
  } else if (trace) {
    note(trace, 4, 'chat-mode', 'passed', chat ? "This chat uses your tool settings." : 'No chat given: chat settings are not considered.');
  }

  // 5. Ask rules, then allow rules.
  const ask = firstMatch(candidates.ask, args);
  if (ask) return finish(trace, changedGrant, 'ask', ruleSource('ask-rule', ask), reasons.ask(ask), 5);
  if (trace) note(trace, 5, 'ask-rule', 'passed', `None of your ask rules matches ${name}${describeArgsChecked(candidates.ask.length)}.`);
  const allow = firstMatch(candidates.allow, args);
  if (allow) return finish(trace, changedGrant, 'allow', ruleSource('allow-rule', allow), reasons.allow(allow), 5);
  if (trace) note(trace, 5, 'allow-rule', 'passed', `None of your allow rules matches ${name}${describeArgsChecked(candidates.allow.length)}.`);

  // 6. Tool setting > server setting.
  const toolSetting = policy.toolSetting(serverName, toolName);
  if (toolSetting === 'auto-approve') {
    return finish(trace, changedGrant, 'allow', { kind: 'tool-setting', serverName, toolName, setting: toolSetting }, reasons.toolAutoApprove(serverName, toolName), 6);
  }
  if (toolSetting === 'always-ask') {
    return finish(trace, changedGrant, 'ask', { kind: 'tool-setting', serverName, toolName, setting: toolSetting }, reasons.toolAlwaysAsk(serverName, toolName), 6);
  }
  if (trace) note(trace, 6, 'tool-setting', 'passed', `The tool setting of ${name} defers to the server.`);
  const server = policy.serverSettings(serverName);
  if (server?.autoApprove) {
    return finish(trace, changedGrant, 'allow', { kind: 'server-setting', serverName, setting: 'auto-approve' }, reasons.serverAutoApprove(serverName), 6);
  }
  if (trace) note(trace, 6, 'server-setting', 'passed', `The server '${serverName}' is not set to auto-approve its tools.`);

  // 7. Read-only tools of trusted servers, only in that global mode and only for servers the user trusts.
  if (mode === 'auto-approve-read-only-trusted') {
    const trusted = policy.serverTrusted(serverName);
    if (trusted && tool?.annotations?.readOnlyHint === true) {
      return finish(trace, changedGrant, 'allow', { kind: 'trusted-read-only', serverName, toolName }, reasons.trustedReadOnly(serverName, toolName), 7);
    }
    if (trace) note(trace, 7, 'trusted-read-only', 'passed', readOnlyDetail(serverName, toolName, trusted, tool));
  } else if (trace) {
    note(trace, 7, 'trusted-read-only', 'passed', "Read-only tools are auto-approved only in the global mode 'auto-approve read-only tools of trusted servers'.");
  }

  // 8. Ask.
  if (neverAskIgnored) return finish(trace, changedGrant, 'ask', { kind: 'default' }, reasons.organisationRequiresApprovals(), 8);
  if (mode === 'ask') return finish(trace, changedGrant, 'ask', { kind: 'global-setting', setting: mode }, reasons.globalAsk(), 8);
  return finish(trace, changedGrant, 'ask', { kind: 'default' }, reasons.noAllowSource(), 8);
}

function findGrant(chat: ChatApprovalState, serverName: string, toolName: string): ChatGrant | undefined {
  for (const grant of chat.grants) {
    if (grant.chatId === chat.id && grant.serverName === serverName && grant.toolName === toolName) return grant;
  }
  return undefined;
}

function note(trace: ConsideredStep[] | undefined, step: number, kind: DecisionSourceKind, result: ConsideredStep['result'], detail: string): void {
  trace?.push({ step, kind, result, detail });
}

function finish(
  trace: ConsideredStep[] | undefined,
  changedGrant: ChatGrant | undefined,
  outcome: DecisionOutcome,
  source: DecisionSource,
  reason: string,
  step: number,
): PolicyDecision {
  if (trace) note(trace, step, source.kind, 'decided', reason);
  return {
    outcome,
    source,
    reason: outcome === 'ask' && changedGrant ? reasons.changed(changedGrant) : reason,
    definitionChanged: changedGrant !== undefined,
  };
}

function ruleSource(kind: DecisionSourceKind, rule: CompiledRule): DecisionSource {
  return rule.number === undefined ? { kind, ruleId: rule.rule.id } : { kind, ruleId: rule.rule.id, ruleNumber: rule.number };
}

function firstMatch(rules: readonly CompiledRule[], args: Record<string, unknown>): CompiledRule | undefined {
  for (const rule of rules) if (argumentsMatch(rule, args)) return rule;
  return undefined;
}

function describeArgsChecked(candidates: number): string {
  if (candidates === 0) return '';
  return candidates === 1 ? ' (one names this tool; its argument conditions do not hold)' : ` (${candidates} name this tool; their argument conditions do not hold)`;
}

function grantDetail(name: string, hasChat: boolean, hasGrant: boolean): string {
  if (!hasChat) return 'No chat given: chat grants are not considered.';
  if (hasGrant) return `This chat allowed ${name}, but the tool is not known now, so the grant cannot be checked.`;
  return `This chat has not allowed ${name} ('Allow for this chat').`;
}

function readOnlyDetail(serverName: string, toolName: string, trusted: boolean, tool: ToolDefinition | undefined): string {
  if (!trusted) return `You have not marked the server '${serverName}' trusted, so its read-only hints do not count.`;
  if (!tool) return `The tool ${serverName}.${toolName} is not known now, so its annotations cannot be read.`;
  return `'${toolName}' does not say it is read-only.`;
}
