import type { McpImportPreview, McpServerInput } from '../../shared/mcp';
import { WorkbenchError } from '../errors';
import { isReservedSettingName, reservedNameMessage } from '../../shared/setting-names';

/**
 * Reading other apps' MCP configurations: Claude Desktop's claude_desktop_config.json and Cursor's
 * mcp.json (`mcpServers`), VS Code's mcp.json (`servers`, each with a `type`). Pure: text in,
 * servers to add and servers skipped (with the reason) out.
 */

export type ImportFormat = McpImportPreview['format'];

export interface ImportCandidate {
  originalName: string;
  server: McpServerInput;
}

export interface ParsedImport {
  /** The file read, as a person recognises it. */
  file: string;
  format: ImportFormat;
  servers: ImportCandidate[];
  skip: { name: string; reason: string }[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses one file; `expected` is the app the caller took it from, when known. Throws `invalid_input` naming the file. */
export function parseImportFile(file: string, text: string, expected?: ImportFormat): ParsedImport {
  const fail = (problem: string): WorkbenchError =>
    new WorkbenchError('invalid_input', `Cannot import from ${file}: ${problem}`, { file });
  let document: unknown;
  try {
    // VS Code's mcp.json is JSON with comments and trailing commas; strip those so that it parses.
    document = JSON.parse(expected === 'vscode' || /\.jsonc?$/i.test(file) ? stripJsonComments(text) : text);
  } catch (error) {
    throw fail(`it is not valid JSON (${(error as Error).message}).`);
  }
  if (!isObject(document)) throw fail('it must hold a JSON object.');
  let format: ImportFormat;
  let entries: unknown;
  if (isObject(document.mcpServers)) {
    format =
      expected === 'cursor' || expected === 'claude-desktop'
        ? expected
        : /cursor/i.test(file)
          ? 'cursor'
          : 'claude-desktop';
    entries = document.mcpServers;
  } else if (isObject(document.servers)) {
    format = 'vscode';
    entries = document.servers;
  } else if ('mcpServers' in document || 'servers' in document) {
    throw fail(`"${'mcpServers' in document ? 'mcpServers' : 'servers'}" must be an object of servers by name.`);
  } else {
    throw fail(
      'it has neither "mcpServers" (Claude Desktop, Cursor) nor "servers" (VS Code), so it is not an MCP configuration we know.',
    );
  }
  const result: ParsedImport = { file, format, servers: [], skip: [] };
  for (const [name, entry] of Object.entries(entries as Json)) {
    const outcome = isReservedSettingName(name.trim()) ? reservedNameMessage(name.trim()) : convertEntry(entry, format);
    if (typeof outcome === 'string') result.skip.push({ name, reason: outcome });
    else result.servers.push({ originalName: name, server: outcome });
  }
  return result;
}

/** One entry to our input shape, or the reason it cannot be imported. */
function convertEntry(entry: unknown, format: ImportFormat): McpServerInput | string {
  if (!isObject(entry)) return 'the entry is not an object';
  const type = typeof entry.type === 'string' ? entry.type : undefined;
  const enabled = entry.disabled === true ? false : undefined;
  const stringMap = (value: unknown, what: string): Record<string, string> | string | undefined => {
    if (value === undefined) return undefined;
    if (!isObject(value)) return `"${what}" is not an object`;
    const map: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isReservedSettingName(key)) return `"${what}": ${reservedNameMessage(key)}`;
      if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean')
        return `"${what}.${key}" is not a string`;
      const text = String(item);
      if (/\$\{input:[^}]*\}/.test(text))
        return `"${what}.${key}" asks for a VS Code input (${text}), which only VS Code can prompt for; add the server by hand`;
      map[key] = text;
    }
    return map;
  };
  if (typeof entry.url === 'string' || type === 'http' || type === 'sse' || type === 'streamable-http') {
    if (typeof entry.url !== 'string' || !URL.canParse(entry.url) || !/^https?:$/.test(new URL(entry.url).protocol)) {
      return 'it has no http:// or https:// "url"';
    }
    const headers = stringMap(entry.headers, 'headers');
    if (typeof headers === 'string') return headers;
    return {
      url: entry.url,
      ...(headers ? { headers } : {}),
      ...(type === 'sse'
        ? { type: 'sse' as const }
        : format === 'vscode' && type === 'http'
          ? { type: 'http' as const }
          : {}),
      ...(enabled === false ? { enabled } : {}),
    };
  }
  if (type !== undefined && type !== 'stdio') return `its type "${type}" is not one we know (stdio, http or sse)`;
  if (typeof entry.command !== 'string' || entry.command.trim() === '') return 'it has neither a "command" nor a "url"';
  if (entry.args !== undefined && (!Array.isArray(entry.args) || entry.args.some((arg) => typeof arg !== 'string'))) {
    return '"args" is not a list of strings';
  }
  if (entry.envFile !== undefined)
    return 'it reads its environment from an "envFile", which AI Workbench does not read; add the server by hand';
  const env = stringMap(entry.env, 'env');
  if (typeof env === 'string') return env;
  if (entry.cwd !== undefined && typeof entry.cwd !== 'string') return '"cwd" is not a string';
  return {
    command: entry.command.trim(),
    ...(Array.isArray(entry.args) && entry.args.length > 0 ? { args: entry.args as string[] } : {}),
    ...(env ? { env } : {}),
    ...(typeof entry.cwd === 'string' && entry.cwd !== '' ? { cwd: entry.cwd } : {}),
    ...(enabled === false ? { enabled } : {}),
  };
}

/** The name an imported server gets: its own, or `name-2`, `name-3`… when that is taken (case-insensitively). */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  const lower = new Set([...taken].map((item) => item.toLowerCase()));
  if (!lower.has(name.toLowerCase())) return name;
  for (let index = 2; ; index++) {
    const candidate = `${name}-${index}`;
    if (!lower.has(candidate.toLowerCase())) return candidate;
  }
}

/** Removes // and /* comments and trailing commas outside strings (JSON with comments, as VS Code writes it). */
export function stripJsonComments(text: string): string {
  const withoutComments = scanOutsideStrings(text, (at) => {
    if (text.startsWith('//', at)) {
      const end = text.indexOf('\n', at);
      return { end: end === -1 ? text.length : end, insert: '' };
    }
    if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      return { end: end === -1 ? text.length : end + 2, insert: ' ' };
    }
    return null;
  });
  return scanOutsideStrings(withoutComments, (at) => {
    if (withoutComments[at] !== ',') return null;
    let next = at + 1;
    while (/\s/.test(withoutComments[next] ?? '')) next++;
    return withoutComments[next] === '}' || withoutComments[next] === ']' ? { end: at + 1, insert: '' } : null;
  });
}

/** Copies `text`, letting `replace` rewrite from a position outside JSON strings up to `end`. */
function scanOutsideStrings(text: string, replace: (at: number) => { end: number; insert: string } | null): string {
  let out = '';
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++index] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
      continue;
    }
    const replaced = char === '/' || char === ',' ? replace(index) : null;
    if (replaced) {
      out += replaced.insert;
      index = replaced.end - 1;
    } else {
      out += char;
    }
  }
  return out;
}
