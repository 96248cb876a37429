/**
 * The tool calls running on one server: their timeouts (docs/user/mcp-servers.md, "Timeouts") and their chats. A
 * call's timeout counts the time the server works on it, not the time it waits on us: while the server's own request
 * (sampling, elicitation) waits for the person or the model, the clock stands still, and it starts again in full once
 * that is answered, as after a progress notification. Over stdio a server's request does not say which of its calls
 * it serves, so each one holds every clock of that server.
 */
export interface CallClock {
  /** Starts the timeout again in full (a progress notification). */
  restart(): void;
  /** The call ended: the clock is dropped. */
  stop(): void;
}

export interface CallClocks {
  /** A call's clock, for the call of `chatId`: `onExpired` runs once `timeoutMs` passed with nothing held. */
  start(timeoutMs: number, onExpired: () => void, chatId?: string): CallClock;
  /** Runs `wait` (a server's request of the person or the model) with every clock held until it settles. */
  hold<T>(wait: () => Promise<T>): Promise<T>;
  /**
   * Whose request a request of the server is: the one chat running the server's tools now. None, or several (a call
   * without a chat counts as one), and nobody can tell: null, and the request goes to "Server requests".
   */
  chatOf(): string | null;
}

const MAX_TIMER_MS = 2_147_483_647;

/**
 * One timer for all of a server's clocks, armed for the earliest deadline and left armed when a call ends: calls one
 * after another then cost no timer at all, only a deadline each (mcp-call-overhead, docs/dev/benchmarks.md). When it
 * fires it ends the clocks that are due and arms itself for the next deadline, if any. It does not keep the process
 * alive: a call in progress does, through its connection. The running clocks are a list through the clocks
 * themselves: starting and stopping one allocates and hashes nothing more. Both classes are the module's, not made per
 * server, and set their fields in their constructors only: the call path's code stays one copy, and small.
 */
export function createCallClocks(): CallClocks {
  return new Clocks();
}

class Clocks implements CallClocks {
  /** The running clocks, oldest first; `first` and `last` are undefined when none runs. */
  declare first: Clock | undefined;
  declare last: Clock | undefined;
  declare holds: number;
  declare timer: NodeJS.Timeout | undefined;
  declare timerAt: number;
  declare readonly fire: () => void;

  constructor() {
    this.first = undefined;
    this.last = undefined;
    this.holds = 0;
    this.timer = undefined;
    this.timerAt = Infinity;
    this.fire = () => this.expireDue();
  }

  arm(deadline: number): void {
    if (this.holds > 0 || (this.timer && this.timerAt <= deadline)) return;
    clearTimeout(this.timer);
    this.timerAt = deadline;
    // Clamped: Node runs a timer of more than 2^31 - 1 ms after 1 ms.
    this.timer = setTimeout(this.fire, Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())));
    this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private expireDue(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    const due: Clock[] = [];
    let next = Infinity;
    for (let clock = this.first; clock; clock = clock.next) {
      if (clock.deadline <= now) due.push(clock);
      else next = Math.min(next, clock.deadline);
    }
    for (const clock of due) clock.stop();
    for (const clock of due) clock.onExpired();
    if (next !== Infinity) this.arm(next);
  }

  start(timeoutMs: number, onExpired: () => void, chatId?: string): CallClock {
    const clock = new Clock(this, timeoutMs, onExpired, chatId);
    if (this.last) this.last.next = clock;
    else this.first = clock;
    this.last = clock;
    this.arm(clock.deadline);
    return clock;
  }

  async hold<T>(wait: () => Promise<T>): Promise<T> {
    if (this.holds++ === 0) this.disarm();
    try {
      return await wait();
    } finally {
      if (--this.holds === 0) for (let clock = this.first; clock; clock = clock.next) clock.restart();
    }
  }

  chatOf(): string | null {
    let chat: string | undefined;
    for (let clock = this.first; clock; clock = clock.next) {
      if (clock.chatId === undefined || (chat !== undefined && clock.chatId !== chat)) return null;
      chat = clock.chatId;
    }
    return chat ?? null;
  }
}

class Clock implements CallClock {
  declare readonly owner: Clocks;
  declare readonly timeoutMs: number;
  declare readonly onExpired: () => void;
  declare readonly chatId: string | undefined;
  declare deadline: number;
  declare running: boolean;
  declare prev: Clock | undefined;
  declare next: Clock | undefined;

  constructor(owner: Clocks, timeoutMs: number, onExpired: () => void, chatId: string | undefined) {
    this.owner = owner;
    this.timeoutMs = timeoutMs;
    this.onExpired = onExpired;
    this.chatId = chatId;
    this.deadline = Date.now() + timeoutMs;
    this.running = true;
    this.prev = owner.last;
    this.next = undefined;
  }

  restart(): void {
    // A later deadline: the armed timer fires first and arms itself again for this one.
    this.deadline = Date.now() + this.timeoutMs;
    if (this.running) this.owner.arm(this.deadline);
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    const owner = this.owner;
    if (this.prev) this.prev.next = this.next;
    else owner.first = this.next;
    if (this.next) this.next.prev = this.prev;
    else owner.last = this.prev;
    this.prev = this.next = undefined;
  }
}
