import type { WorkbenchError } from '../errors';
import type { GenerateEvent } from './conversation';

/** What one adapter contributes to a streamed generation; `streamGeneration` does the rest the same way for all. */
export interface StreamTranslator<Chunk> {
  /** Opens the provider's stream. Resolves once the response has started (headers received). */
  open(signal: AbortSignal): Promise<AsyncIterable<Chunk>>;
  /** The events one wire chunk yields (text deltas, tool calls that are now complete). */
  translate(chunk: Chunk): Iterable<GenerateEvent>;
  /**
   * The closing events (usage, finish) once the provider's stream has ended, or `undefined` when it ended
   * without the marker that says the reply is complete: the connection dropped.
   */
  close(): GenerateEvent[] | undefined;
  /** Maps an SDK error; `phase` says whether the response had started. */
  mapError(error: unknown, phase: 'connect' | 'stream'): WorkbenchError;
  /** The error for a stream that ended without its end marker. */
  droppedError(): WorkbenchError;
}

/**
 * Runs one streamed generation with the guarantees of `LlmProvider.generate`: the caller's abort (or an early
 * `break`) closes the HTTP stream and ends with `finish: aborted`; errors come out mapped; a stream that ends
 * without its end marker is a dropped stream, not a short answer.
 */
export async function* streamGeneration<Chunk>(
  translator: StreamTranslator<Chunk>,
  signal?: AbortSignal,
): AsyncGenerator<GenerateEvent> {
  const controller = new AbortController();
  const forward = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) {
    yield { type: 'finish', reason: 'aborted' };
    return;
  }
  signal?.addEventListener('abort', forward, { once: true });
  const aborted = (): boolean => signal?.aborted === true;
  let phase: 'connect' | 'stream' = 'connect';
  try {
    let closing: GenerateEvent[] | undefined;
    try {
      const stream = await translator.open(controller.signal);
      phase = 'stream';
      for await (const chunk of stream) {
        if (aborted()) break;
        yield* translator.translate(chunk);
      }
      // The SDKs end an aborted stream quietly: an end without the end marker may still be the caller's abort.
      closing = aborted() ? undefined : translator.close();
    } catch (error) {
      if (aborted()) {
        yield { type: 'finish', reason: 'aborted' };
        return;
      }
      throw translator.mapError(error, phase);
    }
    if (aborted()) {
      yield { type: 'finish', reason: 'aborted' };
      return;
    }
    if (closing === undefined) throw translator.droppedError();
    yield* closing;
  } finally {
    signal?.removeEventListener('abort', forward);
    // Also reached when the consumer stops iterating early: the HTTP stream must not stay open.
    controller.abort();
  }
}
