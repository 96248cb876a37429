import { formatByteSize } from '../../../../shared/byte-size';
import type { McpReadResourceOutput } from '../../../../shared/mcp';
import { ATTACHMENT_TEXT_MAX_LENGTH } from '../../../../shared/limits';
import type { ResourceAttachment } from '../../../../shared/messages';

/**
 * A read resource as an attachment of the next message (docs/user/mcp-servers.md#resources): its text parts joined,
 * a binary part named with its size (not sent), cut to what a message carries.
 */
export function attachmentOf(server: string, name: string, read: McpReadResourceOutput): ResourceAttachment {
  const parts = read.contents.map((content) => {
    if (content.text !== undefined) return content.text;
    const bytes = Math.floor(((content.blob ?? '').length * 3) / 4);
    return `[binary${content.mimeType ? ` ${content.mimeType}` : ''}, ${bytes.toLocaleString('en')} bytes: not included]`;
  });
  const text = parts.join('\n\n');
  const mimeType = read.contents[0]?.mimeType;
  const truncated =
    text.length > ATTACHMENT_TEXT_MAX_LENGTH || read.contents.some((content) => content.truncated === true);
  return {
    server,
    uri: read.uri,
    name,
    ...(mimeType ? { mimeType } : {}),
    text: text.slice(0, ATTACHMENT_TEXT_MAX_LENGTH),
    ...(truncated ? { truncated: true } : {}),
  };
}

/** "12 KB", "830 B": the size of an attachment's text, for its chip. */
export function attachmentSize(attachment: ResourceAttachment): string {
  return formatByteSize(new TextEncoder().encode(attachment.text).length);
}

/** A template's URI with its `{variables}` filled in (RFC 6570 level 1, each value percent-encoded). */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

export function templateVariables(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '').filter(Boolean);
}
