/**
 * Bundles each bundled MCP server that can be bundled into one file, at build time: `out/servers/NAME-VERSION.mjs`,
 * the package's program with all its dependencies. Node then reads and compiles one file instead of resolving and
 * loading hundreds of modules at every server start (docs/dev/benchmarks.md, mcp-start-cpu). The MCP host runs it
 * when its version is the installed package's (src/main/mcp/node-runtime.ts); otherwise the package itself.
 *
 * Then a V8 startup snapshot of the same program for the Node that builds (`NAME-VERSION.KEY.blob`, KEY from
 * `snapshotKey`): its modules evaluated — the SDK's and the server's schemas built — at build time, and the program's
 * own top-level code, which reads its arguments and starts the server, run when a start deserializes it. The host
 * starts a server from it (`node --snapshot-blob FILE ARGS…`) only in that same Node; Electron's Node uses the file.
 * A program that cannot be snapshotted (top-level await below its entry, a snapshot that does not answer
 * `initialize`) gets no snapshot and a warning, never a failed build.
 *
 * Only @modelcontextprotocol/server-filesystem: server-everything reads files next to its own modules and
 * server-memory keeps its default memory file next to its own, so a bundle would change where they look.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { bundledServerFileName, bundledServerSnapshotName, snapshotKey } from '../../src/main/mcp/node-runtime.ts';
import { ROOT } from './project.ts';

export const BUNDLED_SERVERS_DIR = path.join(ROOT, 'out', 'servers');
const BUNDLED = ['@modelcontextprotocol/server-filesystem'] as const;

const MINIFY = {
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'inline',
  logLevel: 'warning',
  target: 'node22',
  platform: 'node',
  bundle: true,
} as const;

export async function bundleServers(outDir = BUNDLED_SERVERS_DIR): Promise<void> {
  fs.rmSync(outDir, { recursive: true, force: true });
  for (const name of BUNDLED) {
    const packageDir = path.join(ROOT, 'node_modules', name);
    const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
      version: string;
      bin: string | Record<string, string>;
    };
    const bin = path.join(
      packageDir,
      typeof manifest.bin === 'string' ? manifest.bin : (Object.values(manifest.bin)[0] as string),
    );
    await build({
      ...MINIFY,
      entryPoints: [bin],
      outfile: path.join(outDir, bundledServerFileName(name, manifest.version)),
      format: 'esm',
      // CommonJS dependencies inside an ES module still call require() for Node's own modules.
      banner: {
        js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);",
      },
    });
    const snapshot = path.join(outDir, bundledServerSnapshotName(name, manifest.version, snapshotKey()));
    try {
      await buildSnapshot(bin, snapshot);
    } catch (error) {
      fs.rmSync(snapshot, { force: true });
      console.warn(`${name}: no startup snapshot, the server starts from its bundle (${(error as Error).message})`);
    }
  }
}

/** The program's top-level code after its imports, as a function `__main` that the snapshot runs at each start. */
function programAsMain(entry: string): Plugin {
  return {
    name: 'program-as-main',
    setup(esbuild) {
      esbuild.onLoad({ filter: /\.js$/ }, (args) => {
        if (args.path !== entry) return undefined;
        const source = fs.readFileSync(args.path, 'utf8');
        const file = ts.createSourceFile(args.path, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
        const exported = (statement: ts.Statement): boolean =>
          ts.isExportDeclaration(statement) ||
          ts.isExportAssignment(statement) ||
          (ts.canHaveModifiers(statement) &&
            (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword));
        if (file.statements.some(exported)) {
          throw new Error('its program exports names');
        }
        const imports = file.statements.filter((statement) => ts.isImportDeclaration(statement));
        const bodyStart = imports.at(-1)?.end ?? 0;
        if (file.statements.some((statement) => ts.isImportDeclaration(statement) && statement.pos >= bodyStart))
          throw new Error('its imports are not all at the top');
        return {
          contents: `${source.slice(0, bodyStart)}\nexport async function __main() {\n${source.slice(bodyStart)}\n}\n`,
          loader: 'js',
        };
      });
    },
  };
}

async function buildSnapshot(entry: string, snapshot: string): Promise<void> {
  const script = `${snapshot}.cjs`;
  try {
    await build({
      ...MINIFY,
      stdin: {
        // Started from a snapshot, argv has no script: the program's own arguments begin at argv[1], so one is put
        // in its place (the snapshot file) for the program, which reads them from argv[2].
        contents: [
          `import { __main } from ${JSON.stringify(entry)};`,
          `import v8 from 'node:v8';`,
          `v8.startupSnapshot.setDeserializeMainFunction(() => {`,
          `  process.argv.splice(1, 0, process.execArgv[process.execArgv.indexOf('--snapshot-blob') + 1] ?? 'snapshot');`,
          `  __main().catch((error) => { console.error(error); process.exit(1); });`,
          `});`,
        ].join('\n'),
        resolveDir: path.dirname(entry),
        loader: 'js',
      },
      outfile: script,
      format: 'cjs',
      plugins: [programAsMain(entry)],
    });
    const made = spawnSync(process.execPath, ['--snapshot-blob', snapshot, '--build-snapshot', script], {
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new Error(`node --build-snapshot: ${made.stderr.trim() || `exit ${made.status}`}`);
    checkSnapshot(snapshot);
  } finally {
    fs.rmSync(script, { force: true });
  }
}

/** Starts the server from the snapshot on an empty folder and asks it `initialize`: it must answer. */
function checkSnapshot(snapshot: string): void {
  const folder = fs.mkdtempSync(path.join(path.dirname(snapshot), '.check-'));
  try {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '0' } },
    };
    const started = spawnSync(process.execPath, ['--snapshot-blob', snapshot, folder], {
      input: `${JSON.stringify(initialize)}\n`,
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (!started.stdout.includes('"serverInfo"'))
      throw new Error(`the snapshot did not answer initialize: ${started.stderr.trim() || started.error?.message}`);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await bundleServers();
