/**
 * What stops one tool call: the caller's cancel or the call's clock (docs/user/mcp-servers.md, "Timeouts"). It is the
 * part of an `AbortSignal` that the 1.x SDK's `Protocol.request` reads — `aborted`, `reason`, `throwIfAborted()` and
 * its `abort` listener — without an `AbortController` and its `EventTarget` for every call (mcp-call-overhead,
 * docs/dev/benchmarks.md). A client that needs a real signal (the SDK v2's) takes `toAbortSignal()`, made on demand.
 * call-abort.test.ts checks against the installed SDK that it reads no more than this.
 */
export class CallAbort {
  aborted = false;
  reason: unknown = undefined;
  private listeners: ((event: Event) => void)[] | undefined;
  private real: AbortController | undefined;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** As `AbortSignal`'s: an `abort` listener runs once, and one added after the abort never runs. */
  addEventListener(type: string, listener: ((event: Event) => void) | null): void {
    if (type !== 'abort' || !listener || this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(type: string, listener: ((event: Event) => void) | null): void {
    if (type !== 'abort' || !this.listeners) return;
    const index = this.listeners.indexOf(listener as (event: Event) => void);
    if (index >= 0) this.listeners.splice(index, 1);
  }

  /** Aborts once; later calls do nothing. Without a reason, the reason is an `AbortError`, as `AbortController`'s. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    const event = new Event('abort');
    for (const listener of listeners) {
      // As an EventTarget does: a listener that throws does not keep the others from running.
      try {
        listener(event);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.real?.abort(this.reason);
  }

  /**
   * Aborts with `signal`'s reason when it aborts (at once when it has), until `unfollow`. This object is the listener
   * (`handleEvent`): no function is made for it.
   */
  follow(signal: AbortSignal): void {
    if (signal.aborted) this.abort(signal.reason);
    else signal.addEventListener('abort', this, { once: true });
  }

  unfollow(signal: AbortSignal): void {
    signal.removeEventListener('abort', this);
  }

  handleEvent(event: Event): void {
    this.abort((event.target as AbortSignal).reason);
  }

  /** A real `AbortSignal` that aborts with this, with the same reason. */
  toAbortSignal(): AbortSignal {
    if (!this.real) {
      this.real = new AbortController();
      if (this.aborted) this.real.abort(this.reason);
    }
    return this.real.signal;
  }
}
