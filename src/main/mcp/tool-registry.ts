import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/canonical-json';
import type { McpTool } from '../../shared/mcp';
import { sdkTypes } from './sdk-types';
import { ToolAnnotationsSchema, type ToolDefinitionContent } from '../../shared/tool';
import { checkJsonSchema, type SchemaValidator } from './schema-check';
import { assignProviderNames, type ToolKey } from './tool-names';

/** A registry entry: the contract's McpTool (without `available`, which depends on the server) plus its output validator. */
export type RegisteredTool = Omit<McpTool, 'available'> & { validateOutput?: SchemaValidator | undefined };

export interface ListingOutcome {
  /** Tools whose definition now differs from the one first seen. */
  changed: string[];
  /** What was wrong with the listing (duplicates, nameless tools…), for the server's log. */
  notices: string[];
}

/**
 * Every tool of every server, keyed by server + tool name. A definition's hash is the SHA-256 of
 * the canonical JSON of { name, title, description, inputSchema, outputSchema, annotations }.
 * The first definition seen of each tool is remembered for the life of the registry (across
 * reconnects): a tool whose definition changed carries it in `previous`, so approvals can re-ask.
 */
export interface ToolRegistry {
  /** Replaces one server's tools with a fresh `tools/list` answer (the raw `tools` array). */
  update(serverName: string, listing: readonly unknown[], trusted: boolean): ListingOutcome;
  setTrusted(serverName: string, trusted: boolean): void;
  /** Forgets a server entirely, first-seen definitions included (it was removed from the settings). */
  remove(serverName: string): void;
  list(serverName?: string): RegisteredTool[];
  get(serverName: string, toolName: string): RegisteredTool | undefined;
  /** The tool a provider-safe name stands for. */
  resolve(providerName: string): RegisteredTool | undefined;
}

export function definitionHash(content: ToolDefinitionContent): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = content;
  return createHash('sha256').update(canonicalJson({ name, title, description, inputSchema, outputSchema, annotations })).digest('hex');
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const keyOf = (serverName: string, toolName: string): string => `${serverName}\u0000${toolName}`;

export function createToolRegistry(): ToolRegistry {
  const servers = new Map<string, Map<string, RegisteredTool>>();
  const firstSeen = new Map<string, ToolDefinitionContent & { definitionHash: string }>();
  let byProviderName = new Map<string, RegisteredTool>();

  const rename = (): void => {
    const all = [...servers.values()].flatMap((tools) => [...tools.values()]);
    const names = assignProviderNames(all.map((tool): ToolKey => ({ serverName: tool.serverName, toolName: tool.name })));
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
    update(serverName, listing, trusted) {
      const tools = new Map<string, RegisteredTool>();
      const notices: string[] = [];
      for (const raw of listing) {
        if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '') {
          notices.push(`Skipped a tool without a name: ${preview(raw)}`);
          continue;
        }
        if (tools.has(raw.name)) {
          notices.push(`The server lists the tool "${raw.name}" more than once; the first definition is used.`);
          continue;
        }
        const tool = register(serverName, raw, trusted, firstSeen);
        if (tool.problem) notices.push(`The tool "${tool.name}" cannot be used: ${tool.problem}`);
        tools.set(tool.name, tool);
      }
      servers.set(serverName, tools);
      rename();
      return { changed: [...tools.values()].filter((tool) => tool.previous).map((tool) => tool.name), notices };
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
      serverName === undefined ? [...servers.values()].flatMap((tools) => [...tools.values()]) : [...(servers.get(serverName)?.values() ?? [])],
    get: (serverName, toolName) => servers.get(serverName)?.get(toolName),
    resolve: (providerName) => byProviderName.get(providerName),
  };
}

function register(serverName: string, raw: Json, trusted: boolean, firstSeen: Map<string, ToolDefinitionContent & { definitionHash: string }>): RegisteredTool {
  const name = raw.name as string;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const content: ToolDefinitionContent = {
    name,
    title: text(raw.title),
    description: text(raw.description),
    inputSchema: isObject(raw.inputSchema) ? raw.inputSchema : {},
    outputSchema: isObject(raw.outputSchema) ? raw.outputSchema : undefined,
    annotations: isObject(raw.annotations) ? raw.annotations : undefined,
  };
  const hash = definitionHash(content);
  const key = keyOf(serverName, name);
  const first = firstSeen.get(key);
  if (!first) firstSeen.set(key, { ...content, definitionHash: hash });

  let problem: string | undefined;
  const shape = sdkTypes().ToolSchema.safeParse(raw);
  if (!shape.success) {
    problem = `its definition does not follow MCP (${shape.error.issues.map((issue) => `${issue.path.join('.') || 'tool'}: ${issue.message}`).join('; ')}).`;
  }
  if (!problem && content.annotations && !ToolAnnotationsSchema.safeParse(content.annotations).success) {
    problem = 'its annotations are not of the types MCP defines.';
  }
  const input = checkJsonSchema(raw.inputSchema);
  if (!problem && !input.ok) problem = `its input schema is not valid JSON Schema (${input.problem}).`;
  const output = content.outputSchema ? checkJsonSchema(content.outputSchema) : undefined;
  if (!problem && output && !output.ok) problem = `its output schema is not valid JSON Schema (${output.problem}).`;

  return {
    ...shown(content),
    serverName,
    definitionHash: hash,
    ...(first && first.definitionHash !== hash ? { previous: { ...shown(first), definitionHash: first.definitionHash } } : {}),
    providerName: '',
    annotationsTrusted: trusted,
    ...(problem ? { problem } : {}),
    validateOutput: output?.ok ? output.validate : undefined,
  };
}

/** The definition as the contract carries it: no undefined members, annotations only when they have MCP's types (the hash covers them either way). */
function shown(content: ToolDefinitionContent): ToolDefinitionContent {
  const { annotations, ...rest } = content;
  const result = Object.fromEntries(Object.entries(rest).filter(([, item]) => item !== undefined)) as ToolDefinitionContent;
  const parsed = annotations ? ToolAnnotationsSchema.safeParse(annotations) : undefined;
  return parsed?.success ? { ...result, annotations: parsed.data } : result;
}

function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
