import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/canonical-json';
import type { McpTool } from '../../shared/mcp';
import { toolUiOf } from '../../shared/mcp-apps';
import { sdkTypes } from './sdk-types';
import { ToolAnnotationsSchema, type ToolDefinitionContent } from '../../shared/tool';
import { checkJsonSchema, type SchemaValidator } from './schema-check';
import { rawHashOf, type CachedTool } from './tool-list-cache';
import { assignProviderNames, type ToolKey } from './tool-names';

/** A registry entry: the contract's McpTool (without `available`, which depends on the server) plus its output validator. */
export type RegisteredTool = Omit<McpTool, 'available'> & { validateOutput?: SchemaValidator | undefined };

export interface ListingOutcome {
  /** Tools whose definition now differs from the one first seen. */
  changed: string[];
  /** What was wrong with the listing (duplicates, nameless tools…), for the server's log. */
  notices: string[];
  /** The tools that passed every check, as listed: what the next launch may offer before the server starts. */
  checked: CachedTool[];
}

/**
 * Every tool of every server, keyed by server + tool name. A definition's hash is the SHA-256 of
 * the canonical JSON of { name, title, description, inputSchema, outputSchema, annotations, ui } (`ui`, from `_meta.ui`,
 * only when the tool declares one, so the hash of every other tool is what it was).
 * The first definition seen of each tool is remembered for the life of the registry (across
 * reconnects): a tool whose definition changed carries it in `previous`, so approvals can re-ask.
 */
export interface ToolRegistry {
  /**
   * Replaces one server's tools with a fresh `tools/list` answer (the raw `tools` array). A tool whose raw hash is
   * in `known` passed the checks at an earlier listing (the same bytes, canonically) and is not checked again.
   */
  update(
    serverName: string,
    listing: readonly unknown[],
    trusted: boolean,
    known?: ReadonlySet<string>,
  ): ListingOutcome;
  /**
   * Puts a server's tools of an earlier launch in place while it starts (tool-list-cache.ts): checked then, not now,
   * and not remembered as first seen — the live listing that follows is.
   */
  seed(serverName: string, tools: readonly CachedTool[], trusted: boolean): void;
  setTrusted(serverName: string, trusted: boolean): void;
  /** Forgets a server entirely, first-seen definitions included (it was removed from the settings). */
  remove(serverName: string): void;
  list(serverName?: string): RegisteredTool[];
  get(serverName: string, toolName: string): RegisteredTool | undefined;
  /** The tool a provider-safe name stands for. */
  resolve(providerName: string): RegisteredTool | undefined;
}

export function definitionHash(content: ToolDefinitionContent): string {
  const { name, title, description, inputSchema, outputSchema, annotations, ui } = content;
  return createHash('sha256')
    .update(canonicalJson({ name, title, description, inputSchema, outputSchema, annotations, ui }))
    .digest('hex');
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const keyOf = (serverName: string, toolName: string): string => `${serverName}\u0000${toolName}`;

export function createToolRegistry(): ToolRegistry {
  const servers = new Map<string, Map<string, RegisteredTool>>();
  const firstSeen = new Map<string, ToolDefinitionContent & { definitionHash: string }>();
  let byProviderName = new Map<string, RegisteredTool>();

  const rename = (): void => {
    const all = [...servers.values()].flatMap((tools) => [...tools.values()]);
    const names = assignProviderNames(
      all.map((tool): ToolKey => ({ serverName: tool.serverName, toolName: tool.name })),
    );
    const index = new Map(all.map((tool) => [keyOf(tool.serverName, tool.name), tool]));
    byProviderName = new Map();
    for (const [providerName, key] of names) {
      const tool = index.get(keyOf(key.serverName, key.toolName));
      if (!tool) continue;
      tool.providerName = providerName;
      byProviderName.set(providerName, tool);
    }
  };

  return {
    update(serverName, listing, trusted, known) {
      const tools = new Map<string, RegisteredTool>();
      const notices: string[] = [];
      const checked: CachedTool[] = [];
      for (const raw of listing) {
        if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '') {
          notices.push(`Skipped a tool without a name: ${preview(raw)}`);
          continue;
        }
        if (tools.has(raw.name)) {
          notices.push(`The server lists the tool "${raw.name}" more than once; the first definition is used.`);
          continue;
        }
        const rawHash = rawHashOf(raw);
        const tool = register(serverName, raw, trusted, firstSeen, known?.has(rawHash) ?? false);
        if (tool.problem) notices.push(`The tool "${tool.name}" cannot be used: ${tool.problem}`);
        else checked.push({ raw, rawHash });
        tools.set(tool.name, tool);
      }
      servers.set(serverName, tools);
      rename();
      return {
        changed: [...tools.values()].filter((tool) => tool.previous).map((tool) => tool.name),
        notices,
        checked,
      };
    },
    seed(serverName, cached, trusted) {
      const tools = new Map<string, RegisteredTool>();
      for (const { raw } of cached) {
        if (typeof raw.name !== 'string' || raw.name === '' || tools.has(raw.name)) continue;
        tools.set(raw.name, register(serverName, raw, trusted, undefined, true));
      }
      servers.set(serverName, tools);
      rename();
    },
    setTrusted(serverName, trusted) {
      for (const tool of servers.get(serverName)?.values() ?? []) tool.annotationsTrusted = trusted;
    },
    remove(serverName) {
      servers.delete(serverName);
      for (const key of [...firstSeen.keys()]) if (key.startsWith(`${serverName}\u0000`)) firstSeen.delete(key);
      rename();
    },
    list: (serverName) =>
      serverName === undefined
        ? [...servers.values()].flatMap((tools) => [...tools.values()])
        : [...(servers.get(serverName)?.values() ?? [])],
    get: (serverName, toolName) => servers.get(serverName)?.get(toolName),
    resolve: (providerName) => byProviderName.get(providerName),
  };
}

/**
 * A tool as the registry keeps it. `firstSeen` (absent for a tool of an earlier launch) remembers its first
 * definition; `checked` skips the checks a listing of the very same bytes passed before.
 */
function register(
  serverName: string,
  raw: Json,
  trusted: boolean,
  firstSeen: Map<string, ToolDefinitionContent & { definitionHash: string }> | undefined,
  checked: boolean,
): RegisteredTool {
  const name = raw.name as string;
  const declared = toolUiOf(raw._meta);
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const content: ToolDefinitionContent = {
    name,
    title: text(raw.title),
    description: text(raw.description),
    inputSchema: isObject(raw.inputSchema) ? raw.inputSchema : {},
    outputSchema: isObject(raw.outputSchema) ? raw.outputSchema : undefined,
    annotations: isObject(raw.annotations) ? raw.annotations : undefined,
    ui: declared.ui,
  };
  const hash = definitionHash(content);
  const key = keyOf(serverName, name);
  const first = firstSeen?.get(key);
  if (firstSeen && !first) firstSeen.set(key, { ...content, definitionHash: hash });
  const problem = checked ? undefined : (problemOf(raw, content) ?? declared.problem);

  return {
    ...shown(content),
    serverName,
    definitionHash: hash,
    ...(first && first.definitionHash !== hash
      ? { previous: { ...shown(first), definitionHash: first.definitionHash } }
      : {}),
    providerName: '',
    annotationsTrusted: trusted,
    ...taskSupportOf(raw.execution),
    ...(problem ? { problem } : {}),
    validateOutput: content.outputSchema && !problem ? outputValidator(content.outputSchema) : undefined,
  };
}

/** How the tool may be called as a task (MCP `execution.taskSupport`; docs/user/mcp-servers.md#tasks), when it may. */
function taskSupportOf(execution: unknown): { taskSupport?: 'optional' | 'required' } {
  const support = isObject(execution) ? execution.taskSupport : undefined;
  return support === 'optional' || support === 'required' ? { taskSupport: support } : {};
}

/** What makes a tool unusable: a definition that does not follow MCP, or schemas that are not valid JSON Schema. */
function problemOf(raw: Json, content: ToolDefinitionContent): string | undefined {
  const shape = sdkTypes().ToolSchema.safeParse(raw);
  if (!shape.success) {
    return `its definition does not follow MCP (${shape.error.issues.map((issue) => `${issue.path.join('.') || 'tool'}: ${issue.message}`).join('; ')}).`;
  }
  if (content.annotations && !ToolAnnotationsSchema.safeParse(content.annotations).success)
    return 'its annotations are not of the types MCP defines.';
  const input = checkJsonSchema(raw.inputSchema);
  if (!input.ok) return `its input schema is not valid JSON Schema (${input.problem}).`;
  const output = content.outputSchema ? checkJsonSchema(content.outputSchema) : undefined;
  if (output && !output.ok) return `its output schema is not valid JSON Schema (${output.problem}).`;
  return undefined;
}

/** Checks results against the output schema, compiled at the first result (Ajv loads on demand, see ../ajv.ts). */
function outputValidator(schema: Json): SchemaValidator {
  let validate: SchemaValidator | undefined;
  return (value) => {
    if (!validate) {
      const check = checkJsonSchema(schema);
      validate = check.ok
        ? (check.validate ?? (() => undefined))
        : () => `the tool's output schema is not valid JSON Schema (${check.problem})`;
    }
    return validate(value);
  };
}

/** The definition as the contract carries it: no undefined members, annotations only when they have MCP's types (the hash covers them either way). */
function shown(content: ToolDefinitionContent): ToolDefinitionContent {
  const { annotations, ...rest } = content;
  const result = Object.fromEntries(
    Object.entries(rest).filter(([, item]) => item !== undefined),
  ) as ToolDefinitionContent;
  const parsed = annotations ? ToolAnnotationsSchema.safeParse(annotations) : undefined;
  return parsed?.success ? { ...result, annotations: parsed.data } : result;
}

function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
