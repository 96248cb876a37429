import { randomUUID } from 'node:crypto';
import type { McpError, CreateMessageRequestParams, CreateMessageResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { AuditActor, AuditDecision } from '../../shared/audit';
import type {
  SamplingRequestView,
  ServerRequestDecision,
  ServerRequestView,
} from '../../shared/server-request-views';
import type { CompiledPolicy } from '../approval/policy/compiled-policy';
import { decideElicitation, decideSampling, samplingTokenBudget } from '../approval/policy/server-request-policy';
import { SERVER_REQUEST_NO_CHAT, type ServerRequestRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import { sdkTypes } from '../mcp/sdk-types';
import type { EventHub } from '../event-hub';
import type { ContentPart, ConversationMessage, LlmProvider } from '../llm/provider';
import type { ServerRequestHandler, ServerRequestOrigin } from '../mcp/server-request-routing';
import { checkElicitationContent } from './elicitation-form';
import { isWebUrl, NOT_A_WEB_URL } from '../../shared/web-url';

type ElicitParams = Parameters<ServerRequestHandler['elicit']>[1];

/**
 * The servers' requests of the model and the person, decided like tool calls (docs/user/server-requests.md). Owned by
 * the exchange coordinator, which is the only caller of `decide` and `cancelChat`; passive otherwise: it keeps what
 * waits, asks the policy, writes each decision's audit row before the decision applies, and runs the provider.
 *
 * Guarantees:
 * - No sampling request reaches a provider unless a deny rule does not match it, the server's setting is not `deny`,
 *   its budget in the chat is not spent, and the server's `allow`, an "Allow for this chat" or a person allowed it.
 *   The provider is told at most the tokens left in the budget; what it wrote is counted.
 * - An answer the person was asked about goes back only after they allowed it (edited, maybe).
 * - An elicitation's content is checked against its schema before it is sent; a URL is never opened here: the page
 *   opens it after the person confirmed.
 */
export interface ServerRequests extends ServerRequestHandler {
  list(chatId?: string | null): ServerRequestView[];
  /** Throws `not_found` (nothing waits by that id) or `invalid_input` (an answer that does not fit the request). */
  decide(id: string, decision: ServerRequestDecision): { request: ServerRequestView | null };
  /** The chat was stopped: what waits in it is cancelled. */
  cancelChat(chatId: string): void;
  dispose(): void;
}

export interface ServerRequestsDependencies {
  audit: ServerRequestRecorder;
  events: EventHub;
  policy: () => CompiledPolicy;
  /** The chat's provider and model, or the person's default (the first provider's) when there is no chat. */
  modelFor(chatId: string | null): { providerId: string; model: string } | null;
  provider(providerId: string): LlmProvider;
  now?: () => number;
}

interface Waiting {
  view: ServerRequestView;
  settle(decision: ServerRequestDecision): void;
  timer: NodeJS.Timeout | undefined;
}

/** The JSON-RPC error a server gets when its sampling request is refused (the MCP spec's example uses -1). */
const REFUSED = -1;

const NAMES = { sampling: 'sampling/createMessage', answer: 'sampling/answer', elicitation: 'elicitation/create' } as const;

export function createServerRequests(dependencies: ServerRequestsDependencies): ServerRequests {
  const { audit, events, policy } = dependencies;
  const now = dependencies.now ?? Date.now;
  const waiting = new Map<string, Waiting>();
  /** Chat × server pairs the person allowed for the chat. */
  const grants = new Set<string>();
  /** Tokens the model wrote (or was allowed to write) per chat × server. */
  const spent = new Map<string, number>();
  const key = (chatId: string | null, serverName: string): string => `${chatId ?? SERVER_REQUEST_NO_CHAT}\u0000${serverName}`;

  const record = (
    kind: 'sampling' | 'elicitation',
    view: ServerRequestView,
    toolName: string,
    decision: AuditDecision,
    actor: AuditActor,
    decidedBy: string,
    args: Record<string, unknown>,
    extra: { reason?: string | undefined; editedArgs?: Record<string, unknown> | undefined } = {},
  ): void => {
    audit.recordServerRequest({
      kind,
      chatId: view.chatId ?? SERVER_REQUEST_NO_CHAT,
      toolCallId: view.id,
      serverName: view.serverName,
      toolName,
      decision,
      actor,
      decidedBy,
      args,
      ...(extra.reason ? { reason: extra.reason } : {}),
      ...(extra.editedArgs ? { editedArgs: extra.editedArgs } : {}),
    });
  };

  /** Shows the request and waits for the person; a timeout, the server's cancel or a stop answer it as the system. */
  const ask = (view: ServerRequestView, signal: AbortSignal, onSystem: (kind: 'timeout' | 'cancelled') => ServerRequestDecision): Promise<ServerRequestDecision> =>
    new Promise((resolve) => {
      const finish = (decision: ServerRequestDecision, outcome: string): void => {
        const entry = waiting.get(view.id);
        if (!entry) return;
        waiting.delete(view.id);
        clearTimeout(entry.timer);
        signal.removeEventListener('abort', onAbort);
        events.emit('serverRequests.onDidChange', { kind: 'resolved', request: structuredClone(view), outcome });
        resolve(decision);
      };
      const onAbort = (): void => finish(onSystem('cancelled'), 'Cancelled by the server');
      const seconds = policy().policy.timeoutSeconds;
      const entry: Waiting = {
        view,
        settle: (decision) => finish(decision, outcomeWords(decision)),
        timer: seconds > 0 ? setTimeout(() => finish(onSystem('timeout'), 'Timed out'), seconds * 1000) : undefined,
      };
      waiting.set(view.id, entry);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      events.emit('serverRequests.onDidChange', { kind: 'waiting', request: structuredClone(view) });
    });

  // Only a running server's request is refused, so the SDK is loaded (../mcp/sdk-types.ts).
  const refuse = (message: string): McpError => new (sdkTypes().McpError)(REFUSED, message);

  async function sample(origin: ServerRequestOrigin, params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    const { serverName, chatId, signal } = origin;
    const args = samplingArgs(params);
    const view: SamplingRequestView = {
      id: randomUUID(),
      serverName,
      chatId,
      createdAt: now(),
      kind: 'sampling',
      stage: 'request',
      messages: args.messages,
      systemPrompt: params.systemPrompt ?? null,
      maxTokens: params.maxTokens,
      temperature: params.temperature ?? null,
      modelPreferences: params.modelPreferences
        ? {
            hints: (params.modelPreferences.hints ?? []).flatMap((hint) => (hint.name ? [hint.name] : [])),
            costPriority: params.modelPreferences.costPriority ?? null,
            speedPriority: params.modelPreferences.speedPriority ?? null,
            intelligencePriority: params.modelPreferences.intelligencePriority ?? null,
          }
        : null,
      model: dependencies.modelFor(chatId),
      budget: { used: spent.get(key(chatId, serverName)) ?? 0, limit: samplingTokenBudget(policy(), serverName) },
      answer: null,
    };
    const compiled = policy();
    const verdict = decideSampling({ serverName, args, grantedInChat: chatId !== null && grants.has(key(chatId, serverName)) }, compiled);
    if (verdict.outcome === 'deny') {
      record('sampling', view, NAMES.sampling, 'auto_deny', 'policy', verdict.decidedBy, args);
      throw refuse(`Sampling refused by AI Workbench: ${verdict.decidedBy}`);
    }
    const left = (): number => view.budget.limit - (spent.get(key(chatId, serverName)) ?? 0);
    if (left() <= 0) {
      const why = `token budget spent: ${view.budget.limit} tokens for '${serverName}' in this chat`;
      record('sampling', view, NAMES.sampling, 'auto_deny', 'policy', why, args);
      throw refuse(`Sampling refused by AI Workbench: ${why}`);
    }
    if (!view.model) {
      const why = 'no provider and model to answer with';
      record('sampling', view, NAMES.sampling, 'auto_deny', 'system', why, args);
      throw refuse(`Sampling refused by AI Workbench: ${why}`);
    }
    let messages = params.messages;
    let systemPrompt = params.systemPrompt;
    const asked = verdict.outcome === 'ask';
    if (asked) {
      const decision = await ask(view, signal, (kind) => {
        record('sampling', view, NAMES.sampling, kind, 'system', kind === 'timeout' ? 'no answer within the approval timeout' : 'the server or a stop cancelled it', args);
        return { action: 'deny' };
      });
      if (decision.action === 'deny') throw refuse(`The person denied this sampling request${decision.reason ? `: ${decision.reason}` : '.'}`);
      if (decision.action === 'allow-chat' && chatId !== null) grants.add(key(chatId, serverName));
      if (decision.messages) messages = messages.map((message, index) => withText(message, decision.messages?.[index]));
      if (decision.systemPrompt !== undefined) systemPrompt = decision.systemPrompt;
      // A deny rule must not be edited around: the edited request is checked again (its row was written by decide).
      const edited = samplingArgs({ ...params, messages, systemPrompt });
      const again = decideSampling({ serverName, args: edited, grantedInChat: false }, policy());
      if (again.outcome === 'deny') {
        record('sampling', view, NAMES.sampling, 'auto_deny', 'policy', `${again.decidedBy} (checked on the edited request)`, edited);
        throw refuse(`Sampling refused by AI Workbench: ${again.decidedBy}`);
      }
    } else {
      record('sampling', view, NAMES.sampling, verdict.byGrant ? 'session_grant' : 'auto_allow', 'policy', verdict.decidedBy, args);
    }
    if (left() <= 0) throw refuse('Sampling refused by AI Workbench: the token budget was spent meanwhile.');
    // The provider may write no more than the budget has left; that much is counted now and set right after.
    const maxTokens = Math.max(1, Math.min(params.maxTokens, left()));
    const budgetKey = key(chatId, serverName);
    spent.set(budgetKey, (spent.get(budgetKey) ?? 0) + maxTokens);
    const generated = await generate(dependencies.provider(view.model.providerId), view.model.model, messages, systemPrompt, maxTokens, params.temperature, signal).catch(
      (error: unknown) => {
        spent.set(budgetKey, (spent.get(budgetKey) ?? 0) - maxTokens);
        throw refuse(`The model could not answer: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    const used = Math.min(maxTokens, generated.outputTokens ?? maxTokens);
    spent.set(budgetKey, (spent.get(budgetKey) ?? 0) - maxTokens + used);
    let text = generated.text;
    if (asked) {
      view.stage = 'answer';
      view.answer = { text, model: view.model.model, stopReason: generated.stopReason, outputTokens: used };
      view.budget = { used: spent.get(budgetKey) ?? 0, limit: view.budget.limit };
      const decision = await ask(view, signal, (kind) => {
        record('sampling', view, NAMES.answer, kind, 'system', kind === 'timeout' ? 'no answer within the approval timeout' : 'the server or a stop cancelled it', { text });
        return { action: 'deny' };
      });
      if (decision.action === 'deny') throw refuse(`The person did not let the model's answer go back to the server${decision.reason ? `: ${decision.reason}` : '.'}`);
      if (decision.text !== undefined) text = decision.text;
    } else {
      record('sampling', view, NAMES.answer, 'auto_allow', 'policy', verdict.decidedBy, { text, model: view.model.model, outputTokens: used });
    }
    return { role: 'assistant', content: { type: 'text', text }, model: view.model.model, stopReason: generated.stopReason };
  }

  async function elicit(origin: ServerRequestOrigin, params: ElicitParams): Promise<ElicitResult> {
    const { serverName, chatId, signal } = origin;
    const base = { id: randomUUID(), serverName, chatId, createdAt: now(), kind: 'elicitation' as const, message: params.message };
    const view: ServerRequestView =
      params.mode === 'url'
        ? { ...base, mode: 'url', url: params.url, elicitationId: params.elicitationId }
        : { ...base, mode: 'form', requestedSchema: params.requestedSchema as Record<string, unknown> };
    const args = view.mode === 'url' ? { message: view.message, url: view.url } : { message: view.message, requestedSchema: view.requestedSchema };
    const verdict = decideElicitation({ serverName, args }, policy());
    if (verdict.outcome === 'deny') {
      record('elicitation', view, NAMES.elicitation, 'auto_deny', 'policy', verdict.decidedBy, args);
      return { action: 'decline' };
    }
    // A page to open is an http(s) address, nothing else (shared/web-url.ts): declined unseen, and recorded.
    if (view.mode === 'url' && !isWebUrl(view.url)) {
      record('elicitation', view, NAMES.elicitation, 'auto_deny', 'policy', NOT_A_WEB_URL, args);
      return { action: 'decline' };
    }
    const decision = await ask(view, signal, (kind) => {
      record('elicitation', view, NAMES.elicitation, kind, 'system', kind === 'timeout' ? 'no answer within the approval timeout' : 'the server or a stop cancelled it', args);
      return { action: 'cancel' };
    });
    if (decision.action === 'accept') return view.mode === 'form' ? { action: 'accept', content: decision.content ?? {} } : { action: 'accept' };
    return { action: decision.action === 'decline' ? 'decline' : 'cancel' };
  }

  /** The person's answer: checked against what waits, recorded (committed) before it applies. */
  function decide(id: string, decision: ServerRequestDecision): { request: ServerRequestView | null } {
    const entry = waiting.get(id);
    if (!entry) throw new WorkbenchError('not_found', 'No server request waits by that id: it was answered, timed out or cancelled.', { id });
    const { view } = entry;
    const wrong = (allowed: string): WorkbenchError =>
      new WorkbenchError('invalid_input', `This request takes ${allowed}, not "${decision.action}".`, { id, action: decision.action });
    if (view.kind === 'sampling' && view.stage === 'request') {
      if (!['allow-once', 'allow-chat', 'deny'].includes(decision.action)) throw wrong('allow-once, allow-chat or deny');
      if (decision.action === 'allow-chat' && view.chatId === null) {
        throw new WorkbenchError('invalid_input', 'This request came from no chat, so it cannot be allowed for a chat: allow it once or deny it.');
      }
      if (decision.messages && decision.messages.length !== view.messages.length) {
        throw new WorkbenchError('invalid_input', `The edit has ${decision.messages.length} messages; the request has ${view.messages.length}.`);
      }
      const args = { messages: view.messages, systemPrompt: view.systemPrompt, maxTokens: view.maxTokens };
      const edited =
        decision.action !== 'deny' && (decision.messages !== undefined || decision.systemPrompt !== undefined)
          ? {
              messages: view.messages.map((message, index) => ({ role: message.role, text: decision.messages?.[index] ?? message.text })),
              systemPrompt: decision.systemPrompt ?? view.systemPrompt,
              maxTokens: view.maxTokens,
            }
          : undefined;
      // Like an edited tool call: a deny rule the edit hits refuses the answer, with the rule's words, and records nothing.
      if (edited) {
        const verdict = decideSampling({ serverName: view.serverName, args: edited, grantedInChat: false }, policy());
        if (verdict.outcome === 'deny') throw new WorkbenchError('invalid_input', `The edited request is refused: ${verdict.decidedBy}`, { id });
      }
      const auditDecision: AuditDecision = decision.action === 'deny' ? 'deny' : decision.action === 'allow-chat' ? 'allow_session' : 'allow_once';
      record('sampling', view, NAMES.sampling, auditDecision, 'user', `the person: ${decision.action}`, args, { reason: decision.reason, editedArgs: edited });
    } else if (view.kind === 'sampling') {
      if (!['send', 'deny'].includes(decision.action)) throw wrong('send or deny');
      const args = { text: view.answer?.text ?? '', model: view.answer?.model ?? '' };
      const edited = decision.action === 'send' && decision.text !== undefined && decision.text !== args.text ? { text: decision.text } : undefined;
      record('sampling', view, NAMES.answer, decision.action === 'deny' ? 'deny' : 'allow_once', 'user', `the person: ${decision.action}`, args, {
        reason: decision.reason,
        editedArgs: edited,
      });
    } else {
      if (!['accept', 'decline', 'cancel'].includes(decision.action)) throw wrong('accept, decline or cancel');
      if (view.mode === 'form' && decision.action === 'accept') {
        const problems = checkElicitationContent(view.requestedSchema, decision.content ?? {});
        if (problems.length > 0) {
          throw new WorkbenchError('invalid_input', `The answer does not fit the form: ${problems.map((problem) => problem.message).join('; ')}`, { problems });
        }
      }
      const args = view.mode === 'url' ? { message: view.message, url: view.url } : { message: view.message, requestedSchema: view.requestedSchema };
      const auditDecision: AuditDecision = decision.action === 'accept' ? 'allow_once' : decision.action === 'decline' ? 'deny' : 'cancelled';
      record('elicitation', view, NAMES.elicitation, auditDecision, 'user', `the person: ${decision.action}`, args, {
        reason: decision.reason,
        editedArgs: decision.action === 'accept' && view.mode === 'form' ? (decision.content ?? {}) : undefined,
      });
    }
    entry.settle(decision);
    // A sampling request that was allowed comes back as its answer stage once the model wrote it.
    return { request: null };
  }

  return {
    sample,
    elicit,
    decide,
    list(chatId) {
      const all = [...waiting.values()].map((entry) => structuredClone(entry.view));
      return chatId === undefined ? all : all.filter((view) => view.chatId === chatId);
    },
    cancelChat(chatId) {
      for (const entry of [...waiting.values()]) {
        if (entry.view.chatId !== chatId) continue;
        const { view } = entry;
        const kind = view.kind;
        const toolName = view.kind === 'sampling' ? (view.stage === 'answer' ? NAMES.answer : NAMES.sampling) : NAMES.elicitation;
        record(kind, view, toolName, 'cancelled', 'system', 'you stopped the reply', {});
        entry.settle(view.kind === 'sampling' ? { action: 'deny', reason: 'the reply was stopped' } : { action: 'cancel' });
      }
    },
    dispose() {
      for (const entry of waiting.values()) clearTimeout(entry.timer);
      waiting.clear();
    },
  };
}

function outcomeWords(decision: ServerRequestDecision): string {
  switch (decision.action) {
    case 'allow-once':
      return 'Allowed once';
    case 'allow-chat':
      return 'Allowed for this chat';
    case 'send':
      return 'Answer sent';
    case 'accept':
      return 'Accepted';
    case 'decline':
      return 'Declined';
    case 'cancel':
      return 'Cancelled';
    case 'deny':
      return 'Denied';
  }
}

/** What deny rules match and the audit log records: each message's text (other parts named), the system prompt, the limits. */
function samplingArgs(params: Pick<CreateMessageRequestParams, 'messages' | 'systemPrompt' | 'maxTokens'>): {
  messages: { role: 'user' | 'assistant'; text: string }[];
  systemPrompt: string | null;
  maxTokens: number;
} {
  return {
    messages: params.messages.map((message) => ({ role: message.role, text: partsOf(message.content).map(partText).join('\n') })),
    systemPrompt: params.systemPrompt ?? null,
    maxTokens: params.maxTokens,
  };
}

type SamplingMessage = CreateMessageRequestParams['messages'][number];
type SamplingPart = SamplingMessage['content'] extends infer C ? (C extends readonly (infer P)[] ? P : C) : never;

function partsOf(content: SamplingMessage['content']): SamplingPart[] {
  return (Array.isArray(content) ? content : [content]) as SamplingPart[];
}

function partText(part: SamplingPart): string {
  if (part.type === 'text') return part.text;
  if (part.type === 'image' || part.type === 'audio') return `[${part.type} ${part.mimeType}]`;
  return `[${part.type}]`;
}

/** The message with its text parts replaced by the person's edit (other parts kept). */
function withText(message: SamplingMessage, text: string | undefined): SamplingMessage {
  if (text === undefined) return message;
  const others = partsOf(message.content).filter((part) => part.type !== 'text');
  return { ...message, content: [{ type: 'text', text }, ...others] } as SamplingMessage;
}

async function generate(
  provider: LlmProvider,
  model: string,
  messages: readonly SamplingMessage[],
  system: string | undefined,
  maxOutputTokens: number,
  temperature: number | undefined,
  signal: AbortSignal,
): Promise<{ text: string; outputTokens: number | undefined; stopReason: string }> {
  const conversation: ConversationMessage[] = messages.map((message) => {
    const parts = partsOf(message.content);
    if (message.role === 'assistant') return { role: 'assistant', text: parts.map(partText).join('\n'), toolCalls: [] };
    const content: ContentPart[] = parts.map((part) =>
      part.type === 'image' ? { type: 'image', mimeType: part.mimeType, data: part.data } : { type: 'text', text: partText(part) },
    );
    return { role: 'user', content: content.length > 0 ? content : [{ type: 'text', text: '' }] };
  });
  let text = '';
  let outputTokens: number | undefined;
  let stopReason = 'endTurn';
  for await (const event of provider.generate(
    { model, messages: conversation, tools: [], maxOutputTokens, ...(system ? { system } : {}), ...(temperature === undefined ? {} : { temperature: Math.min(2, Math.max(0, temperature)) }) },
    signal,
  )) {
    if (event.type === 'text') text += event.delta;
    else if (event.type === 'usage') outputTokens = event.usage.outputTokens;
    else if (event.type === 'finish') {
      if (event.reason === 'aborted') throw new Error('the request was cancelled');
      stopReason = event.reason === 'length' ? 'maxTokens' : 'endTurn';
    }
  }
  return { text, outputTokens, stopReason };
}
