import { describe, expect, it } from 'vitest';
import type { McpTool } from '../../shared/mcp';
import { screenAppRequest } from './app-requests';

const tool = (serverName: string, name: string, extra: Partial<McpTool> = {}): McpTool => ({
  serverName,
  name,
  inputSchema: { type: 'object' },
  definitionHash: 'a'.repeat(64),
  providerName: `${serverName}__${name}`,
  annotationsTrusted: false,
  available: true,
  ...extra,
});

const TOOLS: McpTool[] = [
  tool('clock', 'show', { ui: { resourceUri: 'ui://clock/view.html', visibility: ['model', 'app'] } }),
  tool('clock', 'poll', { ui: { visibility: ['app'] } }),
  tool('clock', 'reset', { ui: { visibility: ['model'] } }),
  tool('clock', 'plain'),
  tool('clock', 'broken', { problem: 'its input schema is not valid JSON Schema.' }),
  tool('Files', 'write_file'),
];

describe("a view's requests, before any rule or person sees them", () => {
  it("lets a call of its own server's tools visible to apps go on to the pipeline", () => {
    expect(
      screenAppRequest({ kind: 'tools/call', serverName: 'clock', toolName: 'poll', args: { n: 1 } }, TOOLS),
    ).toMatchObject({ ok: true, tool: { name: 'poll' }, args: { n: 1 } });
    expect(
      screenAppRequest({ kind: 'tools/call', serverName: 'clock', toolName: 'show', args: undefined }, TOOLS),
    ).toMatchObject({ ok: true, args: {} });
    // A tool without _meta.ui has the extension's default visibility: model and app.
    expect(
      screenAppRequest({ kind: 'tools/call', serverName: 'clock', toolName: 'plain', args: {} }, TOOLS),
    ).toMatchObject({ ok: true });
  });

  it('refuses a tool of another server, a model-only tool, an unknown or unusable tool, and arguments that are not an object', () => {
    const refused = (toolName: string, args: unknown = {}): string => {
      const screening = screenAppRequest({ kind: 'tools/call', serverName: 'clock', toolName, args }, TOOLS);
      expect(screening.ok).toBe(false);
      return screening.ok ? '' : screening.reason;
    };
    expect(refused('write_file')).toMatch(/may call only that server's tools/);
    expect(refused('reset')).toMatch(/for the model only/);
    expect(refused('nope')).toMatch(/no tool named "nope"/);
    expect(refused('broken')).toMatch(/cannot be used/);
    expect(refused('poll', [1, 2])).toMatch(/not a JSON object/);
    expect(refused('poll', 'rm -rf /')).toMatch(/not a JSON object/);
    const offline = [tool('clock', 'poll', { ui: { visibility: ['app'] }, available: false })];
    expect(
      screenAppRequest({ kind: 'tools/call', serverName: 'clock', toolName: 'poll', args: {} }, offline),
    ).toMatchObject({ ok: false, reason: expect.stringMatching(/not ready/) });
  });

  it("reads only its own server's resources", () => {
    expect(screenAppRequest({ kind: 'resources/read', serverName: 'clock', uri: 'ui://clock/data' }, TOOLS)).toEqual({
      ok: true,
      kind: 'resources/read',
      uri: 'ui://clock/data',
    });
    expect(
      screenAppRequest(
        { kind: 'resources/read', serverName: 'clock', targetServer: 'Files', uri: 'file:///etc/passwd' },
        TOOLS,
      ),
    ).toMatchObject({ ok: false, reason: expect.stringMatching(/only that server's resources/) });
    expect(screenAppRequest({ kind: 'resources/read', serverName: 'clock', uri: '' }, TOOLS)).toMatchObject({
      ok: false,
    });
  });

  it('opens only http(s) links, naming their real host', () => {
    expect(
      screenAppRequest({ kind: 'ui/open-link', serverName: 'clock', url: 'https://example.com/a?b=1' }, TOOLS),
    ).toEqual({ ok: true, kind: 'ui/open-link', url: 'https://example.com/a?b=1', host: 'example.com' });
    expect(
      screenAppRequest({ kind: 'ui/open-link', serverName: 'clock', url: 'https://xn--pple-43d.com/' }, TOOLS),
    ).toMatchObject({ ok: true, host: 'xn--pple-43d.com' });
    for (const url of [
      'javascript:alert(document.cookie)',
      ' JavaScript:alert(1)',
      'data:text/html,<script>1</script>',
      'file:///etc/passwd',
      'vscode://x',
      'not a link',
      'https://paypal.com@evil.example/',
    ]) {
      expect(screenAppRequest({ kind: 'ui/open-link', serverName: 'clock', url }, TOOLS).ok, url).toBe(false);
    }
    expect(
      screenAppRequest(
        { kind: 'ui/open-link', serverName: 'clock', url: `https://example.com/${'a'.repeat(9000)}` },
        TOOLS,
      ).ok,
    ).toBe(false);
  });
});
