import { randomUUID } from 'node:crypto';
import type {
  McpError,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ChatGrant } from '../../shared/approval';
import type { AuditDecision } from '../../shared/audit';
import { SERVER_REQUEST_RESOLUTION_OF, withDecisionOrigin, type DecisionOrigin } from '../../shared/decisions';
import type {
  SamplingRequestView,
  ServerRequestDecision,
  McpServerRequestView,
} from '../../shared/server-request-views';
import type { CompiledPolicy } from '../approval/policy/compiled-policy';
import { decideElicitation, decideSampling, samplingTokenBudget } from '../approval/policy/server-request-policy';
import { samplingGrant, serverRequestRecord, SERVER_REQUEST_NAMES as NAMES } from '../approval/server-request-records';
import type { ServerRequestWaits } from '../approval/server-request-waits';
import { SERVER_REQUEST_NO_CHAT, type ServerRequestRecord, type ServerRequestRecorder } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import { sdkTypes } from '../mcp/sdk-types';
import type { ContentPart, ConversationMessage, LlmProvider } from '../llm/provider';
import type { ServerRequestHandler, ServerRequestOrigin } from '../mcp/server-request-routing';
import { checkElicitationContent } from './elicitation-form';
import { messageText, messageView, partsOf, partText, type SamplingMessage } from './sampling-media';
import { isWebUrl, NOT_A_WEB_URL } from '../../shared/web-url';

type ElicitParams = Parameters<ServerRequestHandler['elicit']>[1];

/**
 * The servers' requests of the model and the person, decided like tool calls (docs/user/server-requests.md). Owned by
 * the exchange coordinator, which is the only caller of `decide` and `cancelChat`. What waits for the person waits in
 * the one pending store (approval/server-request-waits.ts: its rows, timers, grants and claims); this flow asks the
 * policy, records what the policy decided alone, runs the provider, and holds the server's open request until the
 * engine says how it was resolved.
 *
 * Guarantees:
 * - No sampling request reaches a provider unless a deny rule does not match it, the server's setting is not `deny`,
 *   its budget in the chat is not spent, and the server's `allow`, an "Allow for this chat" or a person allowed it.
 *   The provider is told at most the tokens left in the budget; what it wrote is counted.
 * - An answer the person was asked about goes back only after they allowed it (edited, maybe), and only once its
 *   resolution and audit row are committed.
 * - An elicitation's content is checked against its schema before it is sent; a URL is never opened here: the page
 *   opens it after the person confirmed.
 */
export interface ServerRequests extends ServerRequestHandler {
  list(chatId?: string | null): McpServerRequestView[];
  /** Throws `not_found` (nothing waits by that id) or `invalid_input` (an answer that does not fit the request). */
  decide(
    id: string,
    decision: ServerRequestDecision,
    origin?: DecisionOrigin,
  ): { request: McpServerRequestView | null };
  /** The chat was stopped: what waits in it is cancelled. */
  cancelChat(chatId: string): void;
  dispose(): void;
}

export interface ServerRequestsDependencies {
  audit: ServerRequestRecorder;
  /** The one pending store's server requests. */
  waits: ServerRequestWaits;
  policy: () => CompiledPolicy;
  /** The chat's provider and model, or the person's default (the first provider's) when there is no chat. */
  modelFor(chatId: string | null): { providerId: string; model: string } | null;
  provider(providerId: string): LlmProvider;
  now?: () => number;
  /** Failures that have no caller to throw to. */
  onError?: (error: unknown) => void;
}

/** A request the person is asked about: the server's open request, continued once the engine resolved it. */
interface Held {
  view: McpServerRequestView;
  settle(decision: Settled): void;
}

/** How a request the person was asked about ended: their answer, or the system's (a timeout, a cancel, a stop) with why. */
type Settled = ServerRequestDecision & { bySystem?: string };

/** The JSON-RPC error a server gets when its sampling request is refused (the MCP spec's example uses -1). */
const REFUSED = -1;

const WHY = {
  timeout: 'no answer within the approval timeout',
  aborted: 'the server or a stop cancelled it',
  stopped: 'you stopped the reply',
} as const;

export function createServerRequests(dependencies: ServerRequestsDependencies): ServerRequests {
  const { audit, waits, policy } = dependencies;
  const now = dependencies.now ?? Date.now;
  const onError = dependencies.onError ?? (() => {});
  const held = new Map<string, Held>();
  /** Tokens the model wrote (or was allowed to write) per chat × server. */
  const spent = new Map<string, number>();
  const key = (chatId: string | null, serverName: string): string =>
    `${chatId ?? SERVER_REQUEST_NO_CHAT}\u0000${serverName}`;

  /** A row about what the policy decided alone (nothing waited), committed before the decision applies. */
  const record = (
    view: McpServerRequestView,
    decision: AuditDecision,
    actor: 'policy' | 'system',
    decidedBy: string,
    extra: Parameters<typeof serverRequestRecord>[4] = {},
  ): void => {
    audit.recordServerRequest(serverRequestRecord(view, decision, actor, decidedBy, extra));
  };

  /**
   * The system answers what waits (a timeout, the server's cancel, a stop): the engine claims it with its audit row,
   * then the server hears a refusal. Whatever happens to the claim, nothing acts on the request.
   */
  const resolveBySystem = (id: string, outcome: 'timeout' | 'cancelled', why: string): void => {
    const entry = held.get(id);
    if (!entry) return;
    try {
      waits.resolve(id, { outcome, actor: 'system', action: null, reason: why }, [
        serverRequestRecord(entry.view, outcome, 'system', why),
      ]);
    } catch (error) {
      // Resolved meanwhile (`not_found`): its answer settles it. Anything else: refuse the server all the same.
      if (error instanceof WorkbenchError && error.code === 'not_found') return;
      onError(error);
    }
    entry.settle(
      entry.view.kind === 'sampling' ? { action: 'deny', bySystem: why } : { action: 'cancel', bySystem: why },
    );
  };
  const stopDue = waits.onDue((id) => resolveBySystem(id, 'timeout', WHY.timeout));

  /** Shows the request and waits until the engine resolved it: the person's answer, a timeout, the server's cancel or a stop. */
  const ask = (view: McpServerRequestView, signal: AbortSignal): Promise<Settled> =>
    new Promise((resolve, reject) => {
      const onAbort = (): void => resolveBySystem(view.id, 'cancelled', WHY.aborted);
      held.set(view.id, {
        view,
        settle: (decision) => {
          held.delete(view.id);
          signal.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      });
      try {
        waits.add(structuredClone(view));
      } catch (error) {
        held.delete(view.id);
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
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
      messages: params.messages.map(messageView),
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
    const verdict = decideSampling(
      { serverName, args, grantedInChat: chatId !== null && waits.grantedInChat(chatId, serverName) },
      compiled,
    );
    if (verdict.outcome === 'deny') {
      record(view, 'auto_deny', 'policy', verdict.decidedBy, { args });
      throw refuse(`Sampling refused by AI Workbench: ${verdict.decidedBy}`);
    }
    const left = (): number => view.budget.limit - (spent.get(key(chatId, serverName)) ?? 0);
    if (left() <= 0) {
      const why = `token budget spent: ${view.budget.limit} tokens for '${serverName}' in this chat`;
      record(view, 'auto_deny', 'policy', why, { args });
      throw refuse(`Sampling refused by AI Workbench: ${why}`);
    }
    if (!view.model) {
      const why = 'no provider and model to answer with';
      record(view, 'auto_deny', 'system', why, { args });
      throw refuse(`Sampling refused by AI Workbench: ${why}`);
    }
    let messages = params.messages;
    let systemPrompt = params.systemPrompt;
    const asked = verdict.outcome === 'ask';
    if (asked) {
      const decision = await ask(view, signal);
      if (decision.bySystem !== undefined) throw refuse(`Sampling refused by AI Workbench: ${decision.bySystem}`);
      if (decision.action === 'deny')
        throw refuse(`The person denied this sampling request${decision.reason ? `: ${decision.reason}` : '.'}`);
      if (decision.messages) messages = messages.map((message, index) => withText(message, decision.messages?.[index]));
      if (decision.systemPrompt !== undefined) systemPrompt = decision.systemPrompt;
      // A deny rule must not be edited around: the edited request is checked again (its row was written by decide).
      const edited = samplingArgs({ ...params, messages, systemPrompt });
      const again = decideSampling({ serverName, args: edited, grantedInChat: false }, policy());
      if (again.outcome === 'deny') {
        record(view, 'auto_deny', 'policy', `${again.decidedBy} (checked on the edited request)`, { args: edited });
        throw refuse(`Sampling refused by AI Workbench: ${again.decidedBy}`);
      }
    } else {
      record(view, verdict.byGrant ? 'session_grant' : 'auto_allow', 'policy', verdict.decidedBy, { args });
    }
    if (left() <= 0) throw refuse('Sampling refused by AI Workbench: the token budget was spent meanwhile.');
    // The provider may write no more than the budget has left; that much is counted now and set right after.
    const maxTokens = Math.max(1, Math.min(params.maxTokens, left()));
    const budgetKey = key(chatId, serverName);
    spent.set(budgetKey, (spent.get(budgetKey) ?? 0) + maxTokens);
    const generated = await generate(
      dependencies.provider(view.model.providerId),
      view.model.model,
      messages,
      systemPrompt,
      maxTokens,
      params.temperature,
      signal,
    ).catch((error: unknown) => {
      spent.set(budgetKey, (spent.get(budgetKey) ?? 0) - maxTokens);
      throw refuse(`The model could not answer: ${error instanceof Error ? error.message : String(error)}`);
    });
    const used = Math.min(maxTokens, generated.outputTokens ?? maxTokens);
    spent.set(budgetKey, (spent.get(budgetKey) ?? 0) - maxTokens + used);
    let text = generated.text;
    if (asked) {
      view.stage = 'answer';
      view.answer = { text, model: view.model.model, stopReason: generated.stopReason, outputTokens: used };
      view.budget = { used: spent.get(budgetKey) ?? 0, limit: view.budget.limit };
      view.createdAt = now();
      const decision = await ask(view, signal);
      if (decision.bySystem !== undefined) throw refuse(`Sampling refused by AI Workbench: ${decision.bySystem}`);
      if (decision.action === 'deny')
        throw refuse(
          `The person did not let the model's answer go back to the server${decision.reason ? `: ${decision.reason}` : '.'}`,
        );
      if (decision.text !== undefined) text = decision.text;
    } else {
      record(view, 'auto_allow', 'policy', verdict.decidedBy, {
        toolName: NAMES.answer,
        args: { text, model: view.model.model, outputTokens: used },
      });
    }
    return {
      role: 'assistant',
      content: { type: 'text', text },
      model: view.model.model,
      stopReason: generated.stopReason,
    };
  }

  async function elicit(origin: ServerRequestOrigin, params: ElicitParams): Promise<ElicitResult> {
    const { serverName, chatId, signal } = origin;
    const base = {
      id: randomUUID(),
      serverName,
      chatId,
      createdAt: now(),
      kind: 'elicitation' as const,
      message: params.message,
    };
    const view: McpServerRequestView =
      params.mode === 'url'
        ? { ...base, mode: 'url', url: params.url, elicitationId: params.elicitationId }
        : { ...base, mode: 'form', requestedSchema: params.requestedSchema as Record<string, unknown> };
    const args =
      view.mode === 'url'
        ? { message: view.message, url: view.url }
        : { message: view.message, requestedSchema: view.requestedSchema };
    const verdict = decideElicitation({ serverName, args }, policy());
    if (verdict.outcome === 'deny') {
      record(view, 'auto_deny', 'policy', verdict.decidedBy, { args });
      return { action: 'decline' };
    }
    // A page to open is an http(s) address, nothing else (shared/web-url.ts): declined unseen, and recorded.
    if (view.mode === 'url' && !isWebUrl(view.url)) {
      record(view, 'auto_deny', 'policy', NOT_A_WEB_URL, { args });
      return { action: 'decline' };
    }
    const decision = await ask(view, signal);
    if (decision.action === 'accept') {
      // A deny rule added while it waited still stops it, as one does an allowed tool call when it is about to run.
      const again = decideElicitation({ serverName, args }, policy());
      if (again.outcome === 'deny') {
        record(view, 'auto_deny', 'policy', `${again.decidedBy} (checked when the answer was about to be sent)`, {
          args,
        });
        return { action: 'decline' };
      }
      return view.mode === 'form' ? { action: 'accept', content: decision.content ?? {} } : { action: 'accept' };
    }
    return { action: decision.action === 'decline' ? 'decline' : 'cancel' };
  }

  /** The person's answer: checked against what waits, claimed with its audit row (and grant) before it applies. */
  function decide(
    id: string,
    decision: ServerRequestDecision,
    origin?: DecisionOrigin,
  ): { request: McpServerRequestView | null } {
    const entry = held.get(id);
    if (!entry)
      throw new WorkbenchError(
        'not_found',
        'No server request waits by that id: it was answered, timed out or cancelled.',
        { id },
      );
    const view = waits.get(id);
    // A view's tool call waits in the same store but is answered by its own engine (mcp/app-calls.ts).
    if (view.kind === 'app-tool-call')
      throw new WorkbenchError('not_found', 'No server request waits by that id.', { id });
    const wrong = (allowed: string): WorkbenchError =>
      new WorkbenchError('invalid_input', `This request takes ${allowed}, not "${decision.action}".`, {
        id,
        action: decision.action,
      });
    const decidedBy = withDecisionOrigin(`the person: ${decision.action}`, origin);
    let records: ServerRequestRecord[];
    let grant: ChatGrant | undefined;
    if (view.kind === 'sampling' && view.stage === 'request') {
      if (!['allow-once', 'allow-chat', 'deny'].includes(decision.action))
        throw wrong('allow-once, allow-chat or deny');
      if (decision.action === 'allow-chat' && view.chatId === null) {
        throw new WorkbenchError(
          'invalid_input',
          'This request came from no chat, so it cannot be allowed for a chat: allow it once or deny it.',
        );
      }
      if (decision.messages && decision.messages.length !== view.messages.length) {
        throw new WorkbenchError(
          'invalid_input',
          `The edit has ${decision.messages.length} messages; the request has ${view.messages.length}.`,
        );
      }
      const edited =
        decision.action !== 'deny' && (decision.messages !== undefined || decision.systemPrompt !== undefined)
          ? {
              messages: view.messages.map((message, index) => ({
                role: message.role,
                text: messageText(message, decision.messages?.[index]),
              })),
              systemPrompt: decision.systemPrompt ?? view.systemPrompt,
              maxTokens: view.maxTokens,
            }
          : undefined;
      // Like an edited tool call: a deny rule the edit hits refuses the answer, with the rule's words, and records nothing.
      if (edited) {
        const verdict = decideSampling({ serverName: view.serverName, args: edited, grantedInChat: false }, policy());
        if (verdict.outcome === 'deny')
          throw new WorkbenchError('invalid_input', `The edited request is refused: ${verdict.decidedBy}`, { id });
      }
      records = [
        serverRequestRecord(view, SERVER_REQUEST_RESOLUTION_OF[decision.action], 'user', decidedBy, {
          reason: decision.reason,
          editedArgs: edited,
        }),
      ];
      if (decision.action === 'allow-chat' && view.chatId !== null)
        grant = samplingGrant(view.chatId, view.serverName, now());
    } else if (view.kind === 'sampling') {
      if (!['send', 'deny'].includes(decision.action)) throw wrong('send or deny');
      const text = view.answer?.text ?? '';
      const edited =
        decision.action === 'send' && decision.text !== undefined && decision.text !== text
          ? { text: decision.text }
          : undefined;
      records = [
        serverRequestRecord(view, SERVER_REQUEST_RESOLUTION_OF[decision.action], 'user', decidedBy, {
          reason: decision.reason,
          editedArgs: edited,
        }),
      ];
    } else {
      if (!['accept', 'decline', 'cancel'].includes(decision.action)) throw wrong('accept, decline or cancel');
      if (view.mode === 'form' && decision.action === 'accept') {
        const problems = checkElicitationContent(view.requestedSchema, decision.content ?? {});
        if (problems.length > 0) {
          throw new WorkbenchError(
            'invalid_input',
            `The answer does not fit the form: ${problems.map((problem) => problem.message).join('; ')}.`,
            { problems },
          );
        }
      }
      records = [
        serverRequestRecord(view, SERVER_REQUEST_RESOLUTION_OF[decision.action], 'user', decidedBy, {
          reason: decision.reason,
          editedArgs: decision.action === 'accept' && view.mode === 'form' ? (decision.content ?? {}) : undefined,
        }),
      ];
    }
    waits.resolve(
      id,
      {
        outcome: SERVER_REQUEST_RESOLUTION_OF[decision.action],
        actor: 'user',
        action: decision.action,
        reason: decision.reason ?? null,
      },
      records,
      grant,
    );
    entry.settle(decision);
    // A sampling request that was allowed comes back as its answer stage once the model wrote it.
    return { request: null };
  }

  return {
    sample,
    elicit,
    decide,
    list: (chatId) =>
      waits
        .list(chatId)
        .filter((view): view is McpServerRequestView => view.kind !== 'app-tool-call' && held.has(view.id)),
    cancelChat(chatId) {
      for (const entry of [...held.values()]) {
        if (entry.view.chatId === chatId) resolveBySystem(entry.view.id, 'cancelled', WHY.stopped);
      }
    },
    dispose() {
      stopDue();
      // What this flow held can no longer be answered here: the servers hear a refusal, the rows are resolved.
      for (const entry of [...held.values()]) resolveBySystem(entry.view.id, 'cancelled', WHY.aborted);
    },
  };
}

/** What deny rules match and the audit log records: each message's text (other parts named), the system prompt, the limits. */
function samplingArgs(params: Pick<CreateMessageRequestParams, 'messages' | 'systemPrompt' | 'maxTokens'>): {
  messages: { role: 'user' | 'assistant'; text: string }[];
  systemPrompt: string | null;
  maxTokens: number;
} {
  return {
    messages: params.messages.map((message) => ({
      role: message.role,
      text: partsOf(message.content).map(partText).join('\n'),
    })),
    systemPrompt: params.systemPrompt ?? null,
    maxTokens: params.maxTokens,
  };
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
      part.type === 'image'
        ? { type: 'image', mimeType: part.mimeType, data: part.data }
        : { type: 'text', text: partText(part) },
    );
    return { role: 'user', content: content.length > 0 ? content : [{ type: 'text', text: '' }] };
  });
  let text = '';
  let outputTokens: number | undefined;
  let stopReason = 'endTurn';
  for await (const event of provider.generate(
    {
      model,
      messages: conversation,
      tools: [],
      maxOutputTokens,
      ...(system ? { system } : {}),
      ...(temperature === undefined ? {} : { temperature: Math.min(2, Math.max(0, temperature)) }),
    },
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
