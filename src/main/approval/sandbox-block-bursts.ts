import type { SandboxBlock } from '../mcp/sandbox/contain';

/** The call a block happened in, if one of the server's calls was running alone. */
export type BlockCall = { toolName: string; chatId?: string | undefined } | undefined;

/** One burst of the same block: the same server, kind, target and call, reported `count` times from `first` to `last`. */
export interface BlockBurst {
  serverName: string;
  block: SandboxBlock;
  call: BlockCall;
  count: number;
  first: number;
  last: number;
}

/** What the bursts record when they close: one audit row each, and one for the blocks past the cap. */
export interface BlockBurstSink {
  burst(burst: BlockBurst): void;
  /** Blocks of a server that came while `maxOpen` other bursts of it were open: counted, not listed one by one. */
  overflow(serverName: string, count: number, first: number, last: number): void;
}

export interface BlockBurstOptions {
  /** A burst closes this long after its last block. */
  quietMs?: number;
  /** …or this long after its first, so a steady stream still leaves a row now and then. */
  maxMs?: number;
  /** Distinct bursts open at once per server; past it, blocks are only counted (a flood of distinct paths). */
  maxOpen?: number;
  now?: () => number;
}

export const BLOCK_BURST_QUIET_MS = 1000;
export const BLOCK_BURST_MAX_MS = 10_000;
export const BLOCK_BURST_MAX_OPEN = 50;

/**
 * The same block repeated in a burst is one audit row with a count (docs/user/sandbox.md#blocks): a server that retries
 * a path in a loop, restarts and tries again, or writes a flood of reports, leaves a row per distinct block and burst,
 * not a row per report. A burst is recorded when it has been quiet for `quietMs`, has lasted `maxMs`, or at `flush`.
 */
export function createBlockBursts(sink: BlockBurstSink, options: BlockBurstOptions = {}) {
  const quietMs = options.quietMs ?? BLOCK_BURST_QUIET_MS;
  const maxMs = options.maxMs ?? BLOCK_BURST_MAX_MS;
  const maxOpen = options.maxOpen ?? BLOCK_BURST_MAX_OPEN;
  const now = options.now ?? Date.now;
  const open = new Map<string, BlockBurst & { timer: NodeJS.Timeout }>();
  const overflow = new Map<string, { count: number; first: number; last: number; timer: NodeJS.Timeout }>();

  const close = (key: string): void => {
    const burst = open.get(key);
    if (!burst) return;
    open.delete(key);
    clearTimeout(burst.timer);
    const { timer: _timer, ...closed } = burst;
    sink.burst(closed);
  };
  const closeOverflow = (serverName: string): void => {
    const counted = overflow.get(serverName);
    if (!counted) return;
    overflow.delete(serverName);
    clearTimeout(counted.timer);
    sink.overflow(serverName, counted.count, counted.first, counted.last);
  };
  const timer = (run: () => void, ms: number): NodeJS.Timeout => {
    const handle = setTimeout(run, ms);
    handle.unref();
    return handle;
  };

  return {
    add(serverName: string, block: SandboxBlock, call: BlockCall): void {
      const at = now();
      const key = JSON.stringify([serverName, block.kind, block.target, call?.toolName ?? null, call?.chatId ?? null]);
      const burst = open.get(key);
      if (burst) {
        burst.count += 1;
        burst.last = at;
        clearTimeout(burst.timer);
        if (at - burst.first >= maxMs) close(key);
        else burst.timer = timer(() => close(key), quietMs);
        return;
      }
      const openOfServer = [...open.values()].filter((item) => item.serverName === serverName).length;
      if (openOfServer >= maxOpen) {
        const counted = overflow.get(serverName);
        if (counted) {
          counted.count += 1;
          counted.last = at;
        } else {
          overflow.set(serverName, {
            count: 1,
            first: at,
            last: at,
            timer: timer(() => closeOverflow(serverName), maxMs),
          });
        }
        return;
      }
      open.set(key, {
        serverName,
        block,
        call,
        count: 1,
        first: at,
        last: at,
        timer: timer(() => close(key), quietMs),
      });
    },
    /** Records every open burst now (the app closing, a test reading the log). */
    flush(): void {
      for (const key of [...open.keys()]) close(key);
      for (const serverName of [...overflow.keys()]) closeOverflow(serverName);
    },
  };
}

export type BlockBursts = ReturnType<typeof createBlockBursts>;
