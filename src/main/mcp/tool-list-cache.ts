import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/canonical-json';
import { readFileIfExists, writeFileAtomic } from '../settings/atomic-file';

/**
 * The tool lists servers gave at earlier launches, so that a chat need not wait for every server to start before
 * its first request (docs/user/mcp-servers.md#tool-lists-from-the-last-launch). Only tools whose definition passed
 * the registry's checks are kept, each with the SHA-256 of its canonical JSON as the server sent it: a live tool
 * with the same hash was checked already. A cache only: a file that is missing, damaged or of another version is
 * an empty cache, and a write that fails is forgotten. Nothing here decides or runs anything: a call of a tool
 * offered from here waits for the server's live definition and runs only if it is the same (tool-loop.ts).
 */
export interface ToolListCache {
  /** The server's checked tools of its last listing under the same launch parameters, or undefined. */
  get(serverName: string, launchKey: string): CachedTool[] | undefined;
  /** Remembers a live listing's checked tools; writes the file only when they differ from what it holds. */
  put(serverName: string, launchKey: string, tools: readonly CachedTool[]): void;
  /** Forgets a server (it was removed from the settings). */
  forget(serverName: string): void;
}

/** One tool as its server listed it (the raw `tools/list` entry), and the hash of its canonical JSON. */
export interface CachedTool {
  raw: Record<string, unknown>;
  rawHash: string;
}

interface CacheFile {
  version: 1;
  servers: Record<string, { launchKey: string; tools: CachedTool[] }>;
}

const VERSION = 1;

export function rawHashOf(raw: unknown): string {
  return createHash('sha256').update(canonicalJson(raw)).digest('hex');
}

export function createToolListCache(file: string, onError: (message: string) => void = () => {}): ToolListCache {
  let loaded: CacheFile | undefined;
  const load = (): CacheFile => {
    if (loaded) return loaded;
    loaded = { version: VERSION, servers: {} };
    try {
      const text = readFileIfExists(file);
      if (text !== null) {
        const parsed = JSON.parse(text) as Partial<CacheFile> | null;
        if (parsed?.version === VERSION && typeof parsed.servers === 'object' && parsed.servers !== null)
          loaded.servers = parsed.servers;
      }
    } catch (error) {
      onError(
        `The tool lists of the last launch could not be read (${(error as Error).message}); every server's tools wait for it to start.`,
      );
    }
    return loaded;
  };
  const save = (cache: CacheFile): void => {
    try {
      writeFileAtomic(file, JSON.stringify(cache));
    } catch (error) {
      onError(`The tool lists could not be kept for the next launch: ${(error as Error).message}`);
    }
  };
  return {
    get(serverName, launchKey) {
      const entry = Object.hasOwn(load().servers, serverName) ? load().servers[serverName] : undefined;
      if (!entry || entry.launchKey !== launchKey || !Array.isArray(entry.tools)) return undefined;
      // Each entry must be what put() wrote, and its hash must still match it: anything else is not offered.
      const tools = entry.tools.filter(
        (tool): tool is CachedTool =>
          typeof tool === 'object' &&
          tool !== null &&
          typeof tool.raw === 'object' &&
          tool.raw !== null &&
          typeof tool.rawHash === 'string' &&
          rawHashOf(tool.raw) === tool.rawHash,
      );
      return tools.length === entry.tools.length ? tools : undefined;
    },
    put(serverName, launchKey, tools) {
      // Read again: another process of the same data folder (the app, a CLI command) may have written meanwhile.
      loaded = undefined;
      const cache = load();
      const next = { launchKey, tools: [...tools] };
      const known = Object.hasOwn(cache.servers, serverName) ? cache.servers[serverName] : undefined;
      if (known && canonicalJson(known) === canonicalJson(next)) return;
      cache.servers = { ...cache.servers, [serverName]: next };
      save(cache);
    },
    forget(serverName) {
      loaded = undefined;
      const cache = load();
      if (!Object.hasOwn(cache.servers, serverName)) return;
      const { [serverName]: _gone, ...rest } = cache.servers;
      cache.servers = rest;
      save(cache);
    },
  };
}
