import {
  DEFAULT_SAMPLING_TOKEN_BUDGET,
  SERVER_REQUEST_RULE_NAMES,
  type SamplingPolicy,
} from '../../../shared/server-request-views';
import type { CompiledPolicy } from './compiled-policy';
import { denyCheck } from './decision-pipeline';

/** What the policy says about a server's request before any person is asked (docs/user/server-requests.md). */
export type ServerRequestVerdict =
  | { readonly outcome: 'deny'; readonly decidedBy: string }
  | { readonly outcome: 'allow'; readonly decidedBy: string; readonly byGrant: boolean }
  | { readonly outcome: 'ask'; readonly decidedBy: string };

/**
 * A sampling request, in this order, first match wins: (1) deny rules on the server (tool name `sampling`; the
 * organisation's first) — nothing overrides them; (2) the server's setting `sampling: deny`; (3) `sampling: allow`;
 * (4) "Allow for this chat" given earlier in this chat, unless the server's launch spec changed since; (5) ask. The global "approvals off" does not silence it: a
 * server spending the person's model is not a tool call the person switched approvals off for.
 */
export function decideSampling(
  request: { serverName: string; args: Record<string, unknown>; grantedInChat: boolean },
  policy: CompiledPolicy,
): ServerRequestVerdict {
  const denied = denyCheck(
    { serverName: request.serverName, toolName: SERVER_REQUEST_RULE_NAMES.sampling, args: request.args },
    policy,
  );
  if (denied) return { outcome: 'deny', decidedBy: denied.reason };
  const setting = samplingSetting(policy, request.serverName);
  if (setting === 'deny')
    return { outcome: 'deny', decidedBy: `server setting '${request.serverName}': sampling deny` };
  if (setting === 'allow')
    return { outcome: 'allow', decidedBy: `server setting '${request.serverName}': sampling allow`, byGrant: false };
  // A grant was made for what the server ran then: after a changed launch spec it asks (docs/user/approvals.md).
  if (request.grantedInChat && policy.identityChange(request.serverName) === undefined)
    return { outcome: 'allow', decidedBy: `Allowed for this chat: sampling by '${request.serverName}'`, byGrant: true };
  return { outcome: 'ask', decidedBy: `server setting '${request.serverName}': sampling ask` };
}

/** An elicitation asks the person anyway; only a deny rule on the server (tool name `elicitation`) declines it unseen. */
export function decideElicitation(
  request: { serverName: string; args: Record<string, unknown> },
  policy: CompiledPolicy,
): ServerRequestVerdict {
  const denied = denyCheck(
    { serverName: request.serverName, toolName: SERVER_REQUEST_RULE_NAMES.elicitation, args: request.args },
    policy,
  );
  if (denied) return { outcome: 'deny', decidedBy: denied.reason };
  return { outcome: 'ask', decidedBy: 'elicitation: the person answers' };
}

export function samplingSetting(policy: CompiledPolicy, serverName: string): SamplingPolicy {
  return policy.serverSettings(serverName)?.sampling ?? 'ask';
}

export function samplingTokenBudget(policy: CompiledPolicy, serverName: string): number {
  return policy.serverSettings(serverName)?.samplingTokenBudget ?? DEFAULT_SAMPLING_TOKEN_BUDGET;
}
