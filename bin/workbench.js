#!/usr/bin/env node
// The `workbench` command. Plain JavaScript that any Node runs: it moves itself onto Node 22 (the `node`
// package, where the system Node is older: better-sqlite3 needs ≥ 22), rebuilds out/ in a checkout when a
// source changed since the last build, then runs the built CLI (out/main/cli.js).
import { existsSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);

if (major < 22) {
  const candidates = [
    path.join(root, 'node_modules', 'node', 'bin', 'node'),
    path.join(root, 'node_modules', '.bin', 'node'),
  ];
  const node22 = candidates.find((file) => existsSync(file));
  if (!node22) {
    process.stderr.write(
      `workbench: AI Workbench needs Node.js 22 or newer (this is ${process.version}); install it, or run \`npm install\` to get the project's own.\n`,
    );
    process.exit(1);
  }
  // Loaded here only: node:child_process (and node:net under it) would cost every start a few ms.
  const { spawnSync } = await import('node:child_process');
  const result = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`workbench: cannot start ${node22}: ${result.error.message}\n`);
    process.exit(1);
  }
  process.exit(result.status ?? (result.signal === 'SIGINT' ? 130 : 1));
}

// In a checkout (sources next to us, not inside node_modules) keep the build fresh; an installed package ships out/.
const checkout = existsSync(path.join(root, 'src', 'cli')) && !root.split(path.sep).includes('node_modules');
if (checkout && process.env.WORKBENCH_SKIP_BUILD !== '1') {
  const { ensureBuilt } = await import(pathToFileURL(path.join(root, 'scripts', 'lib', 'project.ts')).href);
  await ensureBuilt((line) => process.stderr.write(`${line}\n`));
}

// Node's on-disk compile cache (Node ≥ 22.1): the CLI's modules and the packages it loads are compiled once, not on
// every command (NODE_COMPILE_CACHE picks the folder; the OS temp folder otherwise). See docs/dev/benchmarks.md.
module.enableCompileCache?.();

const entry = path.join(root, 'out', 'main', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write(`workbench: ${path.relative(process.cwd(), entry)} is missing: run \`npm run build\` first.\n`);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
