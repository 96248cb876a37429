/**
 * Bundles each bundled MCP server that can be bundled into one file, at build time: `out/servers/NAME-VERSION.mjs`,
 * the package's program with all its dependencies. Node then reads and compiles one file instead of resolving and
 * loading hundreds of modules at every server start (docs/dev/benchmarks.md, mcp-start-cpu). The MCP host runs it
 * when its version is the installed package's (src/main/mcp/node-runtime.ts); otherwise the package itself.
 *
 * Only @modelcontextprotocol/server-filesystem: server-everything reads files next to its own modules and
 * server-memory keeps its default memory file next to its own, so a bundle would change where they look.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { bundledServerFileName } from '../../src/main/mcp/node-runtime.ts';
import { ROOT } from './project.ts';

export const BUNDLED_SERVERS_DIR = path.join(ROOT, 'out', 'servers');
const BUNDLED = ['@modelcontextprotocol/server-filesystem'] as const;

export async function bundleServers(): Promise<void> {
  fs.rmSync(BUNDLED_SERVERS_DIR, { recursive: true, force: true });
  for (const name of BUNDLED) {
    const packageDir = path.join(ROOT, 'node_modules', name);
    const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string; bin: string | Record<string, string> };
    const bin = typeof manifest.bin === 'string' ? manifest.bin : (Object.values(manifest.bin)[0] as string);
    await build({
      entryPoints: [path.join(packageDir, bin)],
      outfile: path.join(BUNDLED_SERVERS_DIR, bundledServerFileName(name, manifest.version)),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      // CommonJS dependencies inside an ES module still call require() for Node's own modules.
      banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
      legalComments: 'inline',
      minifySyntax: true,
      minifyWhitespace: true,
      logLevel: 'warning',
    });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await bundleServers();
