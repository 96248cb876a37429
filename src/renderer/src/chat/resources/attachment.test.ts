import { describe, expect, it } from 'vitest';
import { attachmentOf, attachmentSize, fillTemplate, templateVariables } from './attachment';

describe('attaching a resource (docs/user/mcp-servers.md#resources)', () => {
  it('keeps text, names binary parts with their size, and says when the server cut it', () => {
    const attachment = attachmentOf('Everything', 'doc', {
      name: 'Everything',
      uri: 'demo://x',
      contents: [
        { uri: 'demo://x', mimeType: 'text/plain', text: 'hello' },
        { uri: 'demo://x#2', mimeType: 'image/png', blob: 'AAAA', truncated: true },
      ],
    });
    expect(attachment).toEqual({
      server: 'Everything',
      uri: 'demo://x',
      name: 'doc',
      mimeType: 'text/plain',
      text: 'hello\n\n[binary image/png, 3 bytes: not included]',
      truncated: true,
    });
    expect(attachmentSize({ ...attachment, text: 'x'.repeat(2048) })).toBe('2 KB');
    expect(attachmentSize({ ...attachment, text: 'héllo' })).toBe('6 B');
  });

  it('fills a template’s variables, encoded', () => {
    expect(templateVariables('demo://resource/dynamic/text/{resourceId}')).toEqual(['resourceId']);
    expect(fillTemplate('demo://resource/dynamic/text/{resourceId}', { resourceId: 'a b/3' })).toBe(
      'demo://resource/dynamic/text/a%20b%2F3',
    );
  });
});
