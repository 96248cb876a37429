import type { McpSession } from './mcp-session';
import type {
  McpReadResourceOutput,
  McpResource,
  McpResourceContent,
  McpResourcesOutput,
  McpResourceTemplate,
} from '../../shared/mcp';

/** Contents longer than this are cut: a resource is context for a message, not a download. */
export const RESOURCE_CONTENT_MAX_CHARS = 1_000_000;
const MAX_PAGES = 50;

const pick = <T extends object>(item: Record<string, unknown>, keys: readonly (keyof T & string)[]): Partial<T> =>
  Object.fromEntries(keys.filter((key) => item[key] !== undefined).map((key) => [key, item[key]])) as Partial<T>;

/** A server's resources and resource templates, every page (docs/user/mcp-servers.md#resources). */
export async function listResources(name: string, client: McpSession, timeoutMs: number): Promise<McpResourcesOutput> {
  if (!client.getServerCapabilities()?.resources) return { name, resources: [], templates: [] };
  const resources: McpResource[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listResources(cursor ? { cursor } : {}, { timeout: timeoutMs });
    for (const item of result.resources)
      resources.push({
        uri: item.uri,
        name: item.name,
        ...pick<McpResource>(item, ['title', 'description', 'mimeType', 'size']),
      });
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  const templates: McpResourceTemplate[] = [];
  cursor = undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listResourceTemplates(cursor ? { cursor } : {}, { timeout: timeoutMs });
    for (const item of result.resourceTemplates) {
      templates.push({
        uriTemplate: item.uriTemplate,
        name: item.name,
        ...pick<McpResourceTemplate>(item, ['title', 'description', 'mimeType']),
      });
    }
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return { name, resources, templates };
}

/** One resource's contents (`resources/read`), each text or base64 blob cut at RESOURCE_CONTENT_MAX_CHARS. */
export async function readResource(
  name: string,
  client: McpSession,
  uri: string,
  timeoutMs: number,
): Promise<McpReadResourceOutput> {
  const result = await client.readResource({ uri }, { timeout: timeoutMs });
  const contents: McpResourceContent[] = result.contents.map((item) => {
    const value =
      'text' in item && typeof item.text === 'string'
        ? { key: 'text' as const, data: item.text }
        : { key: 'blob' as const, data: String((item as { blob?: unknown }).blob ?? '') };
    const truncated = value.data.length > RESOURCE_CONTENT_MAX_CHARS;
    return {
      uri: item.uri,
      ...(item.mimeType ? { mimeType: item.mimeType } : {}),
      [value.key]: truncated ? value.data.slice(0, RESOURCE_CONTENT_MAX_CHARS) : value.data,
      ...(truncated ? { truncated: true } : {}),
    };
  });
  return { name, uri, contents };
}
