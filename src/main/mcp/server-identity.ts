import path from 'node:path';
import { canonicalJson } from '../../shared/canonical-json';
import type { ServerIdentity } from '../../shared/server-identity';
import { isHttpServer, type ServerSettings } from './server-settings';

/**
 * A server's identity (docs/user/approvals.md, "A server's identity"; docs/dev/architecture.md, "Server
 * identity"): what it runs, never what it is called. Pure: the same settings give the same identity in every
 * process, so the CLI, the app and browser mode bind settings, grants and rules to the same thing.
 *
 *  - stdio: the command and its arguments, and the working folder when one is set. When the command is a package
 *    runner (npx, npm exec, pnpm dlx, yarn dlx, bunx, uvx, uv tool run, pipx run) the package and the version it
 *    pins are read from the arguments; a server that ships with the app is its package.
 *  - HTTP: the URL's origin and path (the OAuth protected resource); query and fragment are not part of it.
 */
export function serverIdentity(server: ServerSettings): ServerIdentity {
  if (isHttpServer(server)) return httpIdentity(server.url);
  const args = server.args ?? [];
  const cwd = server.cwd ? server.cwd : undefined;
  if (server.package) {
    return {
      key: `bundled:${canonicalJson({ package: server.package, args, cwd })}`,
      kind: 'stdio',
      description: commandLine([server.package, ...args], cwd, 'ships with the app'),
      command: server.package,
      args,
      ...(cwd ? { cwd } : {}),
      package: server.package,
    };
  }
  const command = server.command ?? '';
  const runs = runnerPackage(command, args);
  return {
    key: `stdio:${canonicalJson({ command, args, cwd })}`,
    kind: 'stdio',
    description: commandLine(
      [command, ...args],
      cwd,
      runs ? `package ${runs.name}${runs.version ? ` ${runs.version}` : ''}` : undefined,
    ),
    command,
    args,
    ...(cwd ? { cwd } : {}),
    ...(runs ? { package: runs.name } : {}),
    ...(runs?.version ? { version: runs.version } : {}),
  };
}

export function httpIdentity(url: string): ServerIdentity {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.origin === 'null') {
    // Settings check URLs before they are saved; a hand-edited one that does not parse is its own text.
    return { key: `http:${url}`, kind: 'http', description: url, resource: url };
  }
  const resource = `${parsed.origin}${parsed.pathname}`;
  return { key: `http:${resource}`, kind: 'http', description: resource, origin: parsed.origin, resource };
}

/** Whether two identities are the same server. */
export function sameIdentity(
  left: Pick<ServerIdentity, 'key'> | undefined,
  right: Pick<ServerIdentity, 'key'> | undefined,
): boolean {
  return left !== undefined && right !== undefined && left.key === right.key;
}

const RUNNERS: Record<string, { sub?: string; packageFlags: readonly string[]; valueFlags: readonly string[] }> = {
  npx: {
    packageFlags: ['-p', '--package'],
    valueFlags: ['--cache', '--userconfig', '-c', '--call', '-w', '--workspace'],
  },
  bunx: { packageFlags: ['-p', '--package'], valueFlags: [] },
  uvx: { packageFlags: ['--from'], valueFlags: ['--with', '--python', '-p', '--index', '--index-url'] },
  npm: {
    sub: 'exec',
    packageFlags: ['-p', '--package'],
    valueFlags: ['--cache', '--userconfig', '-c', '--call', '-w', '--workspace'],
  },
  pnpm: { sub: 'dlx', packageFlags: ['--package'], valueFlags: ['--allow-build'] },
  yarn: { sub: 'dlx', packageFlags: ['-p', '--package'], valueFlags: [] },
  bun: { sub: 'x', packageFlags: ['-p', '--package'], valueFlags: [] },
  pipx: { sub: 'run', packageFlags: ['--spec'], valueFlags: ['--python', '--index-url'] },
  uv: { sub: 'tool run', packageFlags: ['--from'], valueFlags: ['--with', '--python', '-p', '--index', '--index-url'] },
};

/** The package a runner command starts, with the version it pins; undefined for any other command. */
export function runnerPackage(
  command: string,
  args: readonly string[],
): { name: string; version?: string } | undefined {
  const base = path
    .basename(command.replaceAll('\\', '/'))
    .replace(/\.(cmd|exe|bat|ps1)$/i, '')
    .toLowerCase();
  const runner = RUNNERS[base];
  if (!runner) return undefined;
  let rest = [...args];
  if (runner.sub) {
    const words = runner.sub.split(' ');
    if (!words.every((word, index) => rest[index] === word)) return undefined;
    rest = rest.slice(words.length);
  }
  let spec: string | undefined;
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index] as string;
    if (arg === '--') {
      spec ??= rest[index + 1];
      break;
    }
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    if (runner.packageFlags.includes(flag)) {
      spec = inline ?? rest[index + 1];
      break;
    }
    if (runner.valueFlags.includes(flag)) {
      if (inline === undefined) index += 1;
      continue;
    }
    if (arg.startsWith('-')) continue;
    spec = arg;
    break;
  }
  return spec ? packageSpec(spec) : undefined;
}

/** `@scope/name@1.2.3` → name and version; `name==1.0` (Python) too; a version range or tag counts as the version. */
export function packageSpec(spec: string): { name: string; version?: string } {
  const python = /^([A-Za-z0-9._-]+(?:\[[^\]]*\])?)\s*(?:==|@)\s*(.+)$/.exec(spec);
  if (!spec.startsWith('@') && python && !spec.includes('/'))
    return { name: python[1] as string, version: python[2] as string };
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  if (at <= 0) return { name: spec };
  return { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

function commandLine(words: readonly string[], cwd: string | undefined, note: string | undefined): string {
  const quoted = words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(' ');
  const where = cwd ? ` (in ${cwd})` : '';
  return note ? `${quoted}${where} — ${note}` : `${quoted}${where}`;
}
