import type { ConsideredStep, PolicyDecision, PolicyExplanation, ToolCallRequest } from '../../shared/approval';
import type { AuditDecision } from '../../shared/audit';
import { appGrantFor } from '../../shared/mcp-apps';
import type { ToolCall, ToolDefinition } from '../../shared/tool';
import type { AuditRecorder } from '../audit/audit-log';
import type { ChatApprovalStore } from './chat-approval-store';
import { decide, denyCheck, type ChatApprovalState, type DenyVerdict } from './policy/decision-pipeline';
import type { PolicyService } from './policy-service';
import type { ToolCatalog } from './tool-catalog';

/** What the tool loop does with one call: run it, refuse it, or let it wait for a person (add the request to PendingApprovals). */
export type GateResult =
  | { readonly outcome: 'allow' | 'deny'; readonly decision: PolicyDecision }
  | { readonly outcome: 'ask'; readonly decision: PolicyDecision; readonly request: ToolCallRequest };

/** The approval engine as the tool loop and `policy.explain` use it. */
export interface ApprovalGate {
  /** The pipeline's decision for a call in a chat; no side effects. */
  decide(
    chatId: string,
    call: Pick<ToolCall, 'serverName' | 'toolName' | 'args'>,
    tool: ToolDefinition | undefined,
  ): PolicyDecision;
  /**
   * The pipeline's decision for a tool call an MCP Apps view asks for (docs/user/mcp-apps.md#allow-for-this-chat): the
   * same steps, with the chat's grants of the app's calls in place of the model's; no side effects.
   */
  decideForApp(
    chatId: string,
    call: Pick<ToolCall, 'serverName' | 'toolName' | 'args'>,
    tool: ToolDefinition | undefined,
  ): PolicyDecision;
  /**
   * Decides a call the model made. An allow or deny decided without asking is recorded in the audit
   * log before this returns (so before the tool can run); an ask comes with the request for the card.
   */
  evaluate(
    context: { chatId: string; exchangeId?: string | undefined },
    call: ToolCall,
    tool: ToolDefinition,
  ): GateResult;
  /** The deny step alone, against the rules in force now (the organisation's first); no side effects. */
  denyCheck(call: Pick<ToolCall, 'serverName' | 'toolName' | 'args'>): DenyVerdict | undefined;
  /**
   * Asked right before a call runs, whoever allowed it: when a deny rule in force now matches its arguments, records
   * an `auto_deny` row naming the rule and answers why; the call must then not run. Throws when that row cannot be
   * recorded (the call must not run either).
   */
  checkBeforeRun(
    context: { chatId: string; exchangeId?: string | undefined },
    call: ToolCall,
    definitionHash: string | undefined,
  ): DenyVerdict | undefined;
  /** What would happen to this call and why, step by step. Throws `not_found` for an unknown chat. */
  explain(input: {
    server: string;
    tool: string;
    args?: Record<string, unknown> | undefined;
    chatId?: string | undefined;
  }): PolicyExplanation;
}

/** The chats as the approval engine needs them: `get` throws `not_found` for an unknown chat (the chat service's). */
export interface KnownChats {
  get(id: string): unknown;
}

export interface ApprovalGateDependencies {
  policy: PolicyService;
  store: ChatApprovalStore;
  chats: KnownChats;
  audit: AuditRecorder;
  tools: ToolCatalog;
}

/** Said of a deny rule that stopped a call at the moment it was about to run (after it had been allowed). */
export const RUN_TIME_CHECK_WORDS = '(checked when the call was about to run)';

/** How an automatic decision is written in the audit log. */
export function auditDecisionOf(decision: PolicyDecision): AuditDecision {
  if (decision.outcome === 'deny') return 'auto_deny';
  return decision.source.kind === 'chat-grant' ? 'session_grant' : 'auto_allow';
}

export function createApprovalGate({ policy, store, chats, audit, tools }: ApprovalGateDependencies): ApprovalGate {
  const chatState = (chatId: string): ChatApprovalState => ({
    id: chatId,
    mode: store.mode(chatId),
    grants: store.grantsOf(chatId),
  });
  /** A decision the policy made without a person (when the model asked, or just before the call ran). */
  const recordPolicyDecision = (
    { chatId, exchangeId }: { chatId: string; exchangeId?: string | undefined },
    call: Pick<ToolCall, 'toolCallId' | 'serverName' | 'toolName' | 'args'>,
    definitionHash: string | undefined,
    decision: AuditDecision,
    decidedBy: string,
  ): void => {
    audit.recordDecision({
      chatId,
      exchangeId,
      toolCallId: call.toolCallId,
      serverName: call.serverName,
      toolName: call.toolName,
      definitionHash,
      decision,
      actor: 'policy',
      decidedBy,
      args: call.args,
    });
  };
  const gate: ApprovalGate = {
    decide: (chatId, call, tool) => decide({ call, tool, chat: chatState(chatId) }, policy.compiled()),
    decideForApp(chatId, call, tool) {
      const chat = chatState(chatId);
      const grants = chat.grants.flatMap((grant) => {
        const app = appGrantFor(grant);
        return app ? [{ ...grant, ...app }] : [];
      });
      return decide({ call, tool, chat: { ...chat, grants } }, policy.compiled());
    },
    evaluate({ chatId, exchangeId }, call, tool) {
      if (tool.serverName !== call.serverName || tool.name !== call.toolName) {
        throw new Error(
          `The definition of ${tool.serverName}.${tool.name} was given for a call of ${call.serverName}.${call.toolName}.`,
        );
      }
      const decision = gate.decide(chatId, call, tool);
      if (decision.outcome === 'ask') {
        const request: ToolCallRequest = {
          ...call,
          ...(tool.title === undefined ? {} : { title: tool.title }),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
          definitionHash: tool.definitionHash,
          inputSchema: tool.inputSchema,
          decision,
        };
        return { outcome: 'ask', decision, request };
      }
      recordPolicyDecision(
        { chatId, exchangeId },
        call,
        tool.definitionHash,
        auditDecisionOf(decision),
        decision.reason,
      );
      return { outcome: decision.outcome, decision };
    },
    denyCheck: (call) => denyCheck(call, policy.compiled()),
    checkBeforeRun({ chatId, exchangeId }, call, definitionHash) {
      const verdict = denyCheck(call, policy.compiled());
      if (!verdict) return undefined;
      recordPolicyDecision(
        { chatId, exchangeId },
        call,
        definitionHash,
        'auto_deny',
        `${verdict.reason} ${RUN_TIME_CHECK_WORDS}`,
      );
      return verdict;
    },
    explain({ server, tool: toolName, args = {}, chatId }) {
      if (chatId !== undefined) chats.get(chatId);
      const tool = tools.find(server, toolName);
      const considered: ConsideredStep[] = [];
      const decision = decide(
        {
          call: { serverName: server, toolName, args },
          tool,
          chat: chatId === undefined ? undefined : chatState(chatId),
        },
        policy.compiled(),
        considered,
      );
      return { ...decision, toolKnown: tool !== undefined, considered };
    },
  };
  return gate;
}
