import type {
  ChatApprovalMode,
  ChatGrant,
  ConsideredStep,
  DecisionOutcome,
  DecisionSource,
  DecisionSourceKind,
  PolicyDecision,
} from '../../../shared/approval';
import type { ToolDefinition } from '../../../shared/tool';
import type { CompiledPolicy, RuleCandidates } from './compiled-policy';
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
 * The decision pipeline of docs/dev/architecture.md "The decision pipeline": pure, first match wins, always
 * with a reason. This comment, `decision-reasons.ts` and the trace for `policy.explain` follow one order:
 *  1. deny rules, the organisation's first — nothing overrides them
 *  2. approvals off (unless the organisation forbids it) → allow
 *  3. an explicit ask → ask: an ask rule; the tool set to "always ask" (a tool's setting beats its
 *     server's); a chat set to "always ask". A chat grant or a never-ask chat never silences it, so the
 *     decision carries `keepsAsking` for the card's "Allow for this chat"
 *  4. this chat's grant, while the tool's definition hash is unchanged → allow
 *  5. the chat set to "never ask" (unless the organisation forbids it) → allow
 *  6. allow rules → allow
 *  7. the tool's setting "auto-approve", else its server's (seed 003's bypass) → allow
 *  8. read-only by the annotations of a server you trust, in that global mode → allow
 *  9. otherwise ask
 * An explicit ask stands above a grant because a person who set "always ask" predicts a question every
 * time; the grant is still recorded, and counts again once the ask is lifted.
 * With `trace`, every step it looked at is appended (for `explain`); without, nothing is built.
 */
export function decide(input: DecisionInput, policy: CompiledPolicy, trace?: ConsideredStep[]): PolicyDecision {
  const decision = decideSteps(input, policy, trace);
  if (decision.outcome !== 'ask') return decision;
  const identityChanged = policy.identityChange(input.call.serverName);
  if (identityChanged === undefined) return decision;
  return {
    ...decision,
    identityChanged,
    reason: `${decision.reason} ${reasons.identityChanged(input.call.serverName, identityChanged)}`,
  };
}

function decideSteps(input: DecisionInput, policy: CompiledPolicy, trace?: ConsideredStep[]): PolicyDecision {
  const { serverName, toolName, args } = input.call;
  const { tool, chat } = input;
  const candidates = policy.candidates(serverName, toolName);
  const name = trace ? `${serverName}.${toolName}` : '';
  // No closures here: this runs for every tool call, and a closure per call is measurable.

  // 1. Deny rules (the same code that re-checks edited arguments and every call about to run: denyCheck).
  const denied = denyStep(candidates, args);
  if (trace && policy.managed && denied?.source.kind !== 'managed-deny-rule')
    note(trace, 1, 'managed-deny-rule', 'passed', `No rule of your organisation's policy denies ${name}.`);
  if (denied) return finish(trace, undefined, 'deny', denied.source, denied.reason, 1);
  if (trace)
    note(
      trace,
      1,
      'deny-rule',
      'passed',
      `None of your deny rules matches ${name}${describeArgsChecked(candidates.deny.length)}.`,
    );

  // 2. Approvals off.
  const { mode } = policy.policy;
  let neverAskIgnored = false;
  if (mode === 'never-ask') {
    if (policy.neverAskAllowed)
      return finish(trace, undefined, 'allow', { kind: 'approvals-off', setting: mode }, reasons.approvalsOff(), 2);
    neverAskIgnored = true;
    if (trace)
      note(
        trace,
        2,
        'approvals-off',
        'ignored',
        "Approvals are off in your settings, but your organisation's policy requires approvals: ignored.",
      );
  } else if (trace) {
    note(trace, 2, 'approvals-off', 'passed', 'Approvals are on.');
  }

  // The grant is looked up before step 3 only so that an ask can say the tool changed since it was allowed.
  // A grant was made for what the server ran then: a server whose launch spec changed has none (docs/user/approvals.md).
  const identityChanged = policy.identityChange(serverName);
  const grant = chat && !identityChanged ? findGrant(chat, serverName, toolName) : undefined;
  const changedGrant = grant && tool && grant.definitionHash !== tool.definitionHash ? grant : undefined;

  // 3. An explicit ask: ask rules, the tool's "always ask", the chat's "always ask".
  const ask = firstMatch(candidates.ask, args);
  if (ask)
    return finish(
      trace,
      changedGrant,
      'ask',
      ruleSource('ask-rule', ask),
      reasons.ask(ask),
      3,
      reasons.keepsAsking.askRule(ask),
    );
  if (trace)
    note(
      trace,
      3,
      'ask-rule',
      'passed',
      `None of your ask rules matches ${name}${describeArgsChecked(candidates.ask.length)}.`,
    );
  const toolSetting = policy.toolSetting(serverName, toolName);
  if (toolSetting === 'always-ask') {
    const source: DecisionSource = { kind: 'tool-setting', serverName, toolName, setting: toolSetting };
    return finish(
      trace,
      changedGrant,
      'ask',
      source,
      reasons.toolAlwaysAsk(serverName, toolName),
      3,
      reasons.keepsAsking.toolAlwaysAsk(serverName, toolName),
    );
  }
  if (trace) note(trace, 3, 'tool-setting', 'passed', `${name} is not set to 'Always ask'.`);
  const chatMode = chat?.mode ?? NO_CHAT_MODE;
  if (chatMode === 'always-ask') {
    return finish(
      trace,
      changedGrant,
      'ask',
      { kind: 'chat-mode', setting: chatMode },
      reasons.chatAlwaysAsk(),
      3,
      reasons.keepsAsking.chatAlwaysAsk(),
    );
  }
  if (trace)
    note(
      trace,
      3,
      'chat-mode',
      'passed',
      chat ? "This chat is not set to 'Always ask'." : 'No chat given: chat settings are not considered.',
    );

  // 4. This chat's grant, bound to the definition the person saw.
  if (grant && tool && !changedGrant) {
    return finish(
      trace,
      undefined,
      'allow',
      { kind: 'chat-grant', serverName, toolName, grantedAt: grant.grantedAt },
      reasons.chatGrant(grant),
      4,
    );
  }
  if (trace) {
    if (changedGrant)
      note(
        trace,
        4,
        'chat-grant',
        'ignored',
        `You allowed ${name} for this chat at ${clockTime(changedGrant.grantedAt)}, but the tool changed since: it is asked about again.`,
      );
    else
      note(
        trace,
        4,
        'chat-grant',
        grant ? 'ignored' : 'passed',
        grantDetail(name, chat !== undefined, grant !== undefined),
      );
  }

  // 5. The chat set to "never ask".
  if (chatMode === 'never-ask') {
    if (policy.neverAskAllowed)
      return finish(trace, changedGrant, 'allow', { kind: 'chat-mode', setting: chatMode }, reasons.chatNeverAsk(), 5);
    neverAskIgnored = true;
    if (trace)
      note(
        trace,
        5,
        'chat-mode',
        'ignored',
        "This chat is set to 'Never ask', but your organisation's policy requires approvals: ignored.",
      );
  } else if (trace) {
    note(
      trace,
      5,
      'chat-mode',
      'passed',
      chat ? "This chat is not set to 'Never ask'." : 'No chat given: chat settings are not considered.',
    );
  }

  // 6. Allow rules.
  const allow = firstMatch(candidates.allow, args);
  if (allow) return finish(trace, changedGrant, 'allow', ruleSource('allow-rule', allow), reasons.allow(allow), 6);
  if (trace)
    note(
      trace,
      6,
      'allow-rule',
      'passed',
      `None of your allow rules matches ${name}${describeArgsChecked(candidates.allow.length)}.`,
    );

  // 7. The tool's setting, else its server's ("always ask" was step 3).
  if (toolSetting === 'auto-approve') {
    return finish(
      trace,
      changedGrant,
      'allow',
      { kind: 'tool-setting', serverName, toolName, setting: toolSetting },
      reasons.toolAutoApprove(serverName, toolName),
      7,
    );
  }
  if (trace) note(trace, 7, 'tool-setting', 'passed', `The tool setting of ${name} defers to the server.`);
  const server = policy.serverSettings(serverName);
  if (server?.autoApprove) {
    return finish(
      trace,
      changedGrant,
      'allow',
      { kind: 'server-setting', serverName, setting: 'auto-approve' },
      reasons.serverAutoApprove(serverName),
      7,
    );
  }
  if (trace)
    note(trace, 7, 'server-setting', 'passed', `The server '${serverName}' is not set to auto-approve its tools.`);

  // 8. Read-only tools of trusted servers, only in that global mode and only for servers the user trusts.
  if (mode === 'auto-approve-read-only-trusted') {
    const trusted = policy.serverTrusted(serverName);
    if (trusted && tool?.annotations?.readOnlyHint === true) {
      return finish(
        trace,
        changedGrant,
        'allow',
        { kind: 'trusted-read-only', serverName, toolName },
        reasons.trustedReadOnly(serverName, toolName),
        8,
      );
    }
    if (trace) note(trace, 8, 'trusted-read-only', 'passed', readOnlyDetail(serverName, toolName, trusted, tool));
  } else if (trace) {
    note(
      trace,
      8,
      'trusted-read-only',
      'passed',
      "Read-only tools are auto-approved only in the global mode 'auto-approve read-only tools of trusted servers'.",
    );
  }

  // 9. Ask.
  if (neverAskIgnored)
    return finish(trace, changedGrant, 'ask', { kind: 'default' }, reasons.organisationRequiresApprovals(), 9);
  if (mode === 'ask')
    return finish(trace, changedGrant, 'ask', { kind: 'global-setting', setting: mode }, reasons.globalAsk(), 9);
  return finish(trace, changedGrant, 'ask', { kind: 'default' }, reasons.noAllowSource(), 9);
}

/** Which deny rule stops a call: the organisation's first, then the person's. */
export interface DenyVerdict {
  readonly source: DecisionSource;
  readonly reason: string;
}

/**
 * The pipeline's step 1 alone (docs/dev/architecture.md, the decision order): whether a deny rule in force matches
 * this call with these arguments. Pure. Used for edited arguments before an approval applies and for every call at
 * the moment it is about to run, so a rule added while a call waited, or an edit, cannot get past a deny rule.
 */
export function denyCheck(call: DecisionInput['call'], policy: CompiledPolicy): DenyVerdict | undefined {
  return denyStep(policy.candidates(call.serverName, call.toolName), call.args);
}

function denyStep(candidates: RuleCandidates, args: Record<string, unknown>): DenyVerdict | undefined {
  const managedDeny = firstMatch(candidates.managedDeny, args);
  if (managedDeny)
    return { source: ruleSource('managed-deny-rule', managedDeny), reason: reasons.managedDeny(managedDeny) };
  const deny = firstMatch(candidates.deny, args);
  if (deny) return { source: ruleSource('deny-rule', deny), reason: reasons.deny(deny) };
  return undefined;
}

function findGrant(chat: ChatApprovalState, serverName: string, toolName: string): ChatGrant | undefined {
  for (const grant of chat.grants) {
    if (grant.chatId === chat.id && grant.serverName === serverName && grant.toolName === toolName) return grant;
  }
  return undefined;
}

function note(
  trace: ConsideredStep[] | undefined,
  step: number,
  kind: DecisionSourceKind,
  result: ConsideredStep['result'],
  detail: string,
): void {
  trace?.push({ step, kind, result, detail });
}

/**
 * `keepsAsking` is given by step 3 only: the explicit ask stays the reason even when a grant is stale
 * (the card shows the change apart), and the card says "Allow for this chat" will not stop the questions.
 */
function finish(
  trace: ConsideredStep[] | undefined,
  changedGrant: ChatGrant | undefined,
  outcome: DecisionOutcome,
  source: DecisionSource,
  reason: string,
  step: number,
  keepsAsking?: string,
): PolicyDecision {
  if (trace) note(trace, step, source.kind, 'decided', reason);
  const decision: PolicyDecision = {
    outcome,
    source,
    reason: outcome === 'ask' && changedGrant && keepsAsking === undefined ? reasons.changed(changedGrant) : reason,
    definitionChanged: changedGrant !== undefined,
  };
  if (keepsAsking !== undefined) decision.keepsAsking = keepsAsking;
  return decision;
}

function ruleSource(kind: DecisionSourceKind, rule: CompiledRule): DecisionSource {
  return rule.number === undefined
    ? { kind, ruleId: rule.rule.id }
    : { kind, ruleId: rule.rule.id, ruleNumber: rule.number };
}

function firstMatch(rules: readonly CompiledRule[], args: Record<string, unknown>): CompiledRule | undefined {
  for (const rule of rules) if (argumentsMatch(rule, args)) return rule;
  return undefined;
}

function describeArgsChecked(candidates: number): string {
  if (candidates === 0) return '';
  return candidates === 1
    ? ' (one names this tool; its argument conditions do not hold)'
    : ` (${candidates} name this tool; their argument conditions do not hold)`;
}

function grantDetail(name: string, hasChat: boolean, hasGrant: boolean): string {
  if (!hasChat) return 'No chat given: chat grants are not considered.';
  if (hasGrant) return `This chat allowed ${name}, but the tool is not known now, so the grant cannot be checked.`;
  return `This chat has not allowed ${name} ('Allow for this chat').`;
}

function readOnlyDetail(
  serverName: string,
  toolName: string,
  trusted: boolean,
  tool: ToolDefinition | undefined,
): string {
  if (!trusted) return `You have not marked the server '${serverName}' trusted, so its read-only hints do not count.`;
  if (!tool) return `The tool ${serverName}.${toolName} is not known now, so its annotations cannot be read.`;
  return `'${toolName}' does not say it is read-only.`;
}
