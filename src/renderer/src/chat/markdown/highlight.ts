/**
 * Syntax highlighting with highlight.js's core and a handful of languages: the common languages of chat
 * replies, about 60 kB instead of the full bundle's 190, and synchronous (a code block is highlighted in the
 * same render that shows it; shiki needs WebAssembly and async loading for the same job).
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });

/** Longer code is shown plain: highlighting it would cost more than it helps. */
const MAX_HIGHLIGHT_LENGTH = 40_000;

const CACHE_LIMIT = 200;
const cache = new Map<string, string>();

/**
 * The highlighted HTML of `code` (highlight.js escapes the code itself), or null for an unknown language.
 * Cached: scrolling a long chat mounts the same code blocks again and again.
 */
export function highlightCode(code: string, language: string | undefined): string | null {
  const name = language?.trim().split(/\s/)[0]?.toLowerCase();
  if (!name || code.length > MAX_HIGHLIGHT_LENGTH || !hljs.getLanguage(name)) return null;
  const key = `${name}\u0000${code}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const html = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  cache.set(key, html);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return html;
}
