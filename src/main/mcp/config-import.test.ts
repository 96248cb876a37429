import { describe, expect, it } from 'vitest';
import { parseImportFile, stripJsonComments, uniqueName } from './config-import';

const CLAUDE = JSON.stringify({
  mcpServers: {
    filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'] },
    github: {
      command: 'docker',
      args: ['run', '-i', 'ghcr.io/github/github-mcp-server'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' },
    },
    broken: { args: ['no command'] },
  },
  globalShortcut: 'Ctrl+Space',
});

describe('parseImportFile', () => {
  it('reads Claude Desktop’s mcpServers: stdio servers with their env, and says why it skips one', () => {
    const parsed = parseImportFile('/home/me/.config/Claude/claude_desktop_config.json', CLAUDE, 'claude-desktop');
    expect(parsed.format).toBe('claude-desktop');
    expect(parsed.servers).toEqual([
      {
        originalName: 'filesystem',
        server: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'] },
      },
      {
        originalName: 'github',
        server: {
          command: 'docker',
          args: ['run', '-i', 'ghcr.io/github/github-mcp-server'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_secret' },
        },
      },
    ]);
    expect(parsed.skip).toEqual([{ name: 'broken', reason: 'it has neither a "command" nor a "url"' }]);
  });

  it('reads Cursor’s mcp.json, remote servers with headers and disabled ones included', () => {
    const text = JSON.stringify({
      mcpServers: {
        remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } },
        off: { command: 'node', args: ['server.js'], disabled: true },
        ftp: { url: 'ftp://example.com' },
      },
    });
    const parsed = parseImportFile('/home/me/.cursor/mcp.json', text);
    expect(parsed.format).toBe('cursor');
    expect(parsed.servers).toEqual([
      {
        originalName: 'remote',
        server: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } },
      },
      { originalName: 'off', server: { command: 'node', args: ['server.js'], enabled: false } },
    ]);
    expect(parsed.skip).toEqual([{ name: 'ftp', reason: 'it has no http:// or https:// "url"' }]);
  });

  it('reads VS Code’s mcp.json (servers with a type, comments, trailing commas) and skips what needs VS Code', () => {
    const text = `{
      // my servers
      "inputs": [{ "type": "promptString", "id": "token", "password": true }],
      "servers": {
        "time": { "type": "stdio", "command": "uvx", "args": ["mcp-server-time"], },
        "docs": { "type": "http", "url": "https://docs.example.com/mcp" },
        "legacy": { "type": "sse", "url": "https://old.example.com/sse" },
        /* needs a prompt */
        "secretive": { "type": "stdio", "command": "x", "env": { "TOKEN": "\${input:token}" } },
        "envfile": { "command": "y", "envFile": "\${workspaceFolder}/.env" },
        "weird": { "type": "websocket", "url": "wss://x" },
      },
    }`;
    const parsed = parseImportFile('/home/me/.config/Code/User/mcp.json', text, 'vscode');
    expect(parsed.format).toBe('vscode');
    expect(parsed.servers).toEqual([
      { originalName: 'time', server: { command: 'uvx', args: ['mcp-server-time'] } },
      { originalName: 'docs', server: { url: 'https://docs.example.com/mcp', type: 'http' } },
      { originalName: 'legacy', server: { url: 'https://old.example.com/sse', type: 'sse' } },
    ]);
    expect(parsed.skip.map((item) => item.name)).toEqual(['secretive', 'envfile', 'weird']);
    expect(parsed.skip[0]?.reason).toMatch(/asks for a VS Code input \(\$\{input:token\}\)/);
    expect(parsed.skip[1]?.reason).toMatch(/envFile/);
    expect(parsed.skip[2]?.reason).toMatch(/has no http:\/\/ or https:\/\/ "url"/);
  });

  it('names the file and the problem for bad JSON or a shape it does not know', () => {
    expect(() => parseImportFile('/tmp/config.json', '{ "mcpServers": ')).toThrow(
      /^Cannot import from \/tmp\/config\.json: it is not valid JSON \(/,
    );
    expect(() => parseImportFile('/tmp/config.json', '[1, 2]')).toThrow(
      'Cannot import from /tmp/config.json: it must hold a JSON object.',
    );
    expect(() => parseImportFile('/tmp/config.json', '{ "theme": "dark" }')).toThrow(
      'Cannot import from /tmp/config.json: it has neither "mcpServers" (Claude Desktop, Cursor) nor "servers" (VS Code), so it is not an MCP configuration we know.',
    );
    expect(() => parseImportFile('/tmp/config.json', '{ "mcpServers": [] }')).toThrow(
      'Cannot import from /tmp/config.json: "mcpServers" must be an object of servers by name.',
    );
    try {
      parseImportFile('/tmp/x.json', 'nope');
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_input', details: { file: '/tmp/x.json' } });
    }
  });
});

describe('uniqueName', () => {
  it('keeps a free name and numbers a taken one, ignoring case', () => {
    expect(uniqueName('github', new Set(['Files']))).toBe('github');
    expect(uniqueName('files', new Set(['Files']))).toBe('files-2');
    expect(uniqueName('files', new Set(['Files', 'files-2']))).toBe('files-3');
  });
});

describe('stripJsonComments', () => {
  it('removes comments and trailing commas outside strings only', () => {
    const text = '{ "a": "// not a comment, }", /* gone */ "b": [1, 2,], // gone\n "c": "/* kept */", }';
    expect(JSON.parse(stripJsonComments(text))).toEqual({ a: '// not a comment, }', b: [1, 2], c: '/* kept */' });
  });
});
