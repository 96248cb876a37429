/**
 * Syntax highlighting with highlight.js, loaded on demand: the first code block with a language asks for it
 * (highlight-languages.ts, a chunk of its own), shows its code plain meanwhile, and every code block highlights
 * once it has arrived (`useHighlighterReady`). Synchronous after that: a code block is highlighted in the same
 * render that shows it (shiki needs WebAssembly and async loading for every block).
 */
import { useSyncExternalStore } from 'react';
import type { HLJSApi } from 'highlight.js';

let hljs: HLJSApi | null = null;
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

/** Starts loading highlight.js (once); resolves when it is there. */
export function loadHighlighter(): Promise<void> {
  loading ??= import('./highlight-languages').then(
    (module) => {
      hljs = module.hljs;
      for (const listener of listeners) listener();
    },
    (error: unknown) => {
      // Code stays plain; a later code block may try again.
      loading = null;
      console.error('Could not load syntax highlighting', error);
    },
  );
  return loading;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** True once highlight.js has loaded: a component that highlights re-renders then. */
export function useHighlighterReady(): boolean {
  return useSyncExternalStore(subscribe, () => hljs !== null);
}

/** Longer code is shown plain: highlighting it would cost more than it helps. */
const MAX_HIGHLIGHT_LENGTH = 40_000;

const CACHE_LIMIT = 200;
const cache = new Map<string, string>();

/**
 * The highlighted HTML of `code` (highlight.js escapes the code itself), or null for an unknown language, and
 * while highlight.js is still loading (this call starts loading it).
 * Cached: scrolling a long chat mounts the same code blocks again and again.
 */
export function highlightCode(code: string, language: string | undefined): string | null {
  const name = language?.trim().split(/\s/)[0]?.toLowerCase();
  if (!name || code.length > MAX_HIGHLIGHT_LENGTH) return null;
  if (!hljs) {
    void loadHighlighter();
    return null;
  }
  if (!hljs.getLanguage(name)) return null;
  const key = `${name}\u0000${code}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const html = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  cache.set(key, html);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return html;
}
