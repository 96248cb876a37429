/**
 * An MCP server whose one tool, `describe-image`, asks the client to sample a prompt with an image in it
 * (docs/user/server-requests.md#sampling): the e2e test of the sampling card's thumbnail. Run as a child process:
 * `node sampling-image-server.ts` (Node strips the types).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { crc32, deflateSync } from 'node:zlib';

/** A 32×32 PNG: four coloured squares, so that a thumbnail is plainly a picture. */
function picture(): string {
  const size = 32;
  const rows = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const at = y * (1 + size * 3) + 1 + x * 3;
      const [r, g, b] =
        y < size / 2 ? (x < size / 2 ? [220, 60, 60] : [60, 160, 80]) : x < size / 2 ? [50, 100, 220] : [240, 190, 40];
      rows[at] = r as number;
      rows[at + 1] = g as number;
      rows[at + 2] = b as number;
    }
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const check = Buffer.alloc(4);
    check.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, check]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

const server = new McpServer({ name: 'sampling-image', version: '1.0.0' });
server.registerTool(
  'describe-image',
  { description: 'Asks the model to describe a picture.', inputSchema: {} },
  async () => {
    const result = await server.server.createMessage({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image', mimeType: 'image/png', data: picture() },
          ],
        },
      ],
      maxTokens: 50,
    });
    return { content: [{ type: 'text', text: `The model said: ${JSON.stringify(result.content)}` }] };
  },
);
await server.connect(new StdioServerTransport());
