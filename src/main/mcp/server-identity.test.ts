import { describe, expect, it } from 'vitest';
import { httpIdentity, packageSpec, runnerPackage, serverIdentity } from './server-identity';

describe('a server identity: what it runs, not what it is called', () => {
  it('is the command and its arguments, with the folder it runs in', () => {
    const plain = serverIdentity({ command: '/opt/notes/server', args: ['--db', 'notes.db'] });
    expect(plain).toMatchObject({
      kind: 'stdio',
      command: '/opt/notes/server',
      args: ['--db', 'notes.db'],
      description: '/opt/notes/server --db notes.db',
    });
    expect(
      serverIdentity({
        command: '/opt/notes/server',
        args: ['--db', 'notes.db'],
        displayName: 'Other label',
        enabled: false,
      }).key,
    ).toBe(plain.key);
    expect(serverIdentity({ command: '/opt/notes/server', args: ['--db', 'other.db'] }).key).not.toBe(plain.key);
    expect(
      serverIdentity({ command: '/opt/notes/server', args: ['--db', 'notes.db'], cwd: '/elsewhere' }).key,
    ).not.toBe(plain.key);
    // Arguments are not joined into one text: ["a b"] and ["a", "b"] are different servers.
    expect(serverIdentity({ command: 'x', args: ['a b'] }).key).not.toBe(
      serverIdentity({ command: 'x', args: ['a', 'b'] }).key,
    );
  });

  it('names the package a runner starts, with the version it pins', () => {
    expect(serverIdentity({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-github@1.2.3'] })).toMatchObject(
      {
        package: '@modelcontextprotocol/server-github',
        version: '1.2.3',
        description:
          'npx -y @modelcontextprotocol/server-github@1.2.3 — package @modelcontextprotocol/server-github 1.2.3',
      },
    );
    expect(runnerPackage('uvx', ['mcp-server-git', '--repository', '.'])).toEqual({ name: 'mcp-server-git' });
    expect(runnerPackage('uvx', ['--from', 'mcp-server-git==0.6.2', 'mcp-server-git'])).toEqual({
      name: 'mcp-server-git',
      version: '0.6.2',
    });
    expect(runnerPackage('pnpm', ['dlx', '@scope/tool@latest'])).toEqual({ name: '@scope/tool', version: 'latest' });
    expect(runnerPackage('npm', ['exec', '--yes', '--package=@scope/tool@2', '--', 'tool'])).toEqual({
      name: '@scope/tool',
      version: '2',
    });
    expect(runnerPackage('C:\\Program Files\\nodejs\\npx.cmd', ['-y', 'server'])).toEqual({ name: 'server' });
    expect(runnerPackage('/usr/bin/bunx', ['server@1'])).toEqual({ name: 'server', version: '1' });
    expect(runnerPackage('yarn', ['install'])).toBeUndefined();
    expect(runnerPackage('node', ['server.js'])).toBeUndefined();
    expect(packageSpec('@scope/name')).toEqual({ name: '@scope/name' });
  });

  it('is the package of a server that ships with the app', () => {
    expect(serverIdentity({ package: '@modelcontextprotocol/server-memory' })).toMatchObject({
      kind: 'stdio',
      package: '@modelcontextprotocol/server-memory',
      description: '@modelcontextprotocol/server-memory — ships with the app',
    });
    expect(serverIdentity({ package: '@modelcontextprotocol/server-memory' }).key).not.toBe(
      serverIdentity({ command: '@modelcontextprotocol/server-memory' }).key,
    );
  });

  it("is an HTTP server's origin and path (the OAuth resource), not its query or the case of its host", () => {
    const identity = serverIdentity({ url: 'https://MCP.Example.com:443/v1/mcp?session=1#x' });
    expect(identity).toMatchObject({
      kind: 'http',
      origin: 'https://mcp.example.com',
      resource: 'https://mcp.example.com/v1/mcp',
    });
    expect(httpIdentity('https://mcp.example.com/v1/mcp').key).toBe(identity.key);
    expect(httpIdentity('https://mcp.example.com/v2/mcp').key).not.toBe(identity.key);
    expect(httpIdentity('http://mcp.example.com/v1/mcp').key).not.toBe(identity.key);
    expect(httpIdentity('not a url')).toMatchObject({ kind: 'http', key: 'http:not a url' });
  });
});
