import type { ModelInfo, ProviderKind } from '../../shared/llm';
import type { GenerateEvent, GenerateRequest } from './conversation';

export type {
  ContentPart,
  ConversationMessage,
  GenerateEvent,
  GenerateRequest,
  ModelToolCall,
  ToolCallArguments,
  ToolResult,
  ToolSpec,
} from './conversation';

/**
 * One language model provider behind the interface every adapter shares (OpenAI and compatible servers,
 * Anthropic, Gemini, the offline demo). The tool loop is written once against it.
 *
 * Guarantees:
 * - `generate` streams events in order: text deltas and complete tool calls as they arrive, `usage` at most
 *   once, and exactly one `finish` last. The caller can not tell the providers apart by their events.
 * - Aborting `signal` (or leaving the loop early) closes the HTTP stream; the stream then ends with
 *   `finish` reason `aborted` (never an error, never a hang).
 * - Every failure is raised from the iterator as a `WorkbenchError` with an `llm_*` code whose message a
 *   person can act on (bad key, rate limit with `details.retryAfterSeconds`, context too long, model not found,
 *   server error, unreachable, stream dropped, request rejected). Nothing is retried silently.
 * - Tool calls with arguments that are not a JSON object arrive with `arguments.kind === 'malformed'`
 *   and the raw text; the stream goes on.
 */
export interface LlmProvider {
  readonly kind: ProviderKind;
  generate(request: GenerateRequest, signal?: AbortSignal): AsyncIterable<GenerateEvent>;
  /** The models this provider offers. Raises the same `llm_*` errors as `generate`. */
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>;
  /** Resolves once the adapter and its SDK are loaded (they load on first use: provider-factory.ts); absent when nothing loads. */
  loaded?(): Promise<void>;
}
