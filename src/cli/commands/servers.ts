import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { isOneOf, MCP_LOG_LEVELS, OAUTH_SIGNING_ALGORITHMS } from '../../shared/closed-sets';
import type { CrossAppAccess, McpServerChange, McpServerInput, OAuthPrivateKey } from '../../shared/mcp';
import type { SandboxGrant } from '../../shared/sandbox';
import { act, integer, leaf, type ProgramOptions } from '../command-kit';
import { CliError } from '../exit-codes';
import { formatTime, table } from '../terminal';
import { launchWords, serversShowCommand, stateWords } from './servers-show';

/** `workbench servers …`: the MCP servers page of the app. */
export function serversCommand(program: Command, options: ProgramOptions): void {
  const servers = program
    .command('servers')
    .description('list, add, remove, enable, disable, restart MCP servers, sign in to them; their logs and tools');

  act(
    leaf(servers, 'list', 'the configured servers and their status').option(
      '--status',
      'start the servers first and show whether each is ready',
    ),
    options,
    async (context, flags: { status?: boolean }) => {
      const session = context.session();
      if (flags.status) await session.startServers();
      const { servers: list } = await session.call('mcp.list');
      if (context.json) return context.terminal.json(list);
      const { colors } = context.terminal;
      if (list.length === 0)
        return context.terminal.line('No MCP servers. Add one with: workbench servers add NAME -- COMMAND [ARGS…]');
      context.terminal.line(
        table([
          [
            'NAME',
            'ENABLED',
            'TRUSTED',
            flags.status ? 'STATE' : 'KIND',
            ...(flags.status ? ['PROTOCOL'] : []),
            'IDENTITY (WHAT IT RUNS)',
          ].map((cell) => colors.bold(cell)),
          ...list.map((server) => [
            server.name,
            server.enabled ? 'yes' : 'no',
            server.trusted ? 'yes' : 'no',
            flags.status
              ? `${stateWords(server.status.state, server.status.toolCount, server.status.message)}${server.status.containment === 'not-contained' ? ' — Not contained' : ''}`
              : server.kind,
            // The MCP revision the server speaks with us (docs/user/mcp-servers.md#protocol-revisions).
            ...(flags.status ? [server.status.protocolVersion ?? '-'] : []),
            server.identity?.description ?? launchWords(server),
          ]),
        ]),
      );
      // A changed launch spec: the server waits for the person (docs/user/approvals.md, "A server's identity").
      for (const server of list) {
        if (!server.identityChanged) continue;
        context.terminal.line(
          colors.yellow(
            server.identityChanged.unrecorded
              ? `${server.name} was added to settings.json outside AI Workbench; it does not start until you accept what it runs: workbench servers accept ${server.name}`
              : `${server.name} runs something else than when its settings were made (was: ${server.identityChanged.previous}); it does not start until you accept what it runs now: workbench servers accept ${server.name}`,
          ),
        );
      }
    },
  );

  act(
    leaf(
      servers,
      'add <name> [command...]',
      'add a server: a command and its arguments (after --), --package for a bundled one, or --url',
    )
      .option(
        '--package <package>',
        'a bundled server: @modelcontextprotocol/server-filesystem, -memory or -everything',
      )
      .option('--url <url>', 'an HTTP (Streamable HTTP or SSE) server')
      .option('--env <NAME=VALUE...>', 'environment variables (stored as secrets)')
      .option('--header <NAME=VALUE...>', 'HTTP headers (stored as secrets)')
      .option(
        '--oauth-client-id <id>',
        'for an OAuth server without dynamic registration: the client ID its owner gave you',
      )
      .option(
        '--oauth-client-secret-env <NAME>',
        "that client's secret, read from this environment variable (stored as a secret)",
      )
      .option('--oauth-client-secret-stdin', "that client's secret, read from stdin (stored as a secret)")
      .option(
        '--oauth-private-key-file <pem>',
        "that client's private key for private_key_jwt, a PKCS#8 PEM file (stored as a secret)",
      )
      .option('--oauth-signing-algorithm <alg>', 'the JWS algorithm of that key (ES256, RS256…)', 'ES256')
      .option(
        '--idp-issuer <url>',
        "cross-app access: sign in through your organisation's identity provider (its issuer URL), with the client above",
      )
      .option(
        '--idp-token-endpoint <url>',
        "cross-app access: the identity provider's token endpoint, when its issuer publishes no metadata",
      )
      .option('--idp-client-id <id>', 'cross-app access: the client id AI Workbench has at the identity provider')
      .option(
        '--idp-client-secret-env <NAME>',
        "cross-app access: that client's secret, read from this environment variable (stored as a secret)",
      )
      .option(
        '--id-token-env <NAME>',
        'cross-app access: your ID token, read from this environment variable (stored as a secret)',
      )
      .option('--id-token-stdin', 'cross-app access: your ID token, read from stdin (stored as a secret)')
      .option('--cwd <dir>', 'working directory of a command')
      .option('--trusted', "trust the server's tool annotations (readOnlyHint…)")
      .option('--disabled', 'add it without starting it')
      .option('--timeout <ms>', 'how long a tool call may take, in ms', integer('--timeout', 100, 86_400_000))
      .addHelpText(
        'after',
        '\nExamples:\n  workbench servers add notes --package @modelcontextprotocol/server-memory\n  workbench servers add git -- uvx mcp-server-git --repository .\n  workbench servers add docs --url https://docs.example.com/mcp --header "Authorization=Bearer …"',
      ),
    options,
    async (
      context,
      name: string,
      command: string[],
      flags: {
        package?: string;
        url?: string;
        env?: string[];
        header?: string[];
        oauthClientId?: string;
        oauthClientSecretEnv?: string;
        oauthClientSecretStdin?: boolean;
        oauthPrivateKeyFile?: string;
        oauthSigningAlgorithm?: string;
        idpIssuer?: string;
        idpTokenEndpoint?: string;
        idpClientId?: string;
        idpClientSecretEnv?: string;
        idTokenEnv?: string;
        idTokenStdin?: boolean;
        cwd?: string;
        trusted?: boolean;
        disabled?: boolean;
        timeout?: number;
      },
    ) => {
      const given = [command.length > 0, flags.package !== undefined, flags.url !== undefined].filter(Boolean).length;
      if (given !== 1)
        throw new CliError('Give exactly one of: a command (after --), --package PACKAGE, or --url URL.');
      const common = {
        ...(flags.trusted ? { trusted: true } : {}),
        ...(flags.disabled ? { enabled: false } : {}),
        ...(flags.timeout === undefined ? {} : { callTimeoutMs: flags.timeout }),
      };
      const stdio = {
        ...(flags.env ? { env: pairs('--env', flags.env) } : {}),
        ...(flags.cwd ? { cwd: path.resolve(flags.cwd) } : {}),
        ...common,
      };
      const server: McpServerInput = flags.url
        ? {
            url: flags.url,
            ...(flags.header ? { headers: pairs('--header', flags.header) } : {}),
            ...(flags.oauthClientId ? { oauthClientId: flags.oauthClientId } : {}),
            ...(await oauthClientSecrets(flags)),
            ...(await crossAppAccessFlags(flags)),
            ...common,
          }
        : flags.package
          ? ({ package: flags.package, ...stdio } as McpServerInput)
          : { command: command[0] as string, args: command.slice(1), ...stdio };
      const session = context.session();
      // A different server under a freed name starts with nothing, and the person is told (docs/user/approvals.md).
      const notices: string[] = [];
      const stop = session.services.events.subscribe((event, payload) => {
        if (event !== 'mcp.onDidChangeServer') return;
        const change = payload as McpServerChange;
        if (change.kind === 'notice') notices.push(change.message);
      });
      let added;
      try {
        added = await session.call('mcp.add', { name, server });
      } finally {
        stop();
      }
      if (context.json) return context.terminal.json(added);
      context.terminal.line(`Added ${added.name}${added.enabled ? '' : ' (disabled)'}: ${launchWords(added)}`);
      for (const notice of notices) context.terminal.line(context.terminal.colors.yellow(notice));
    },
  );

  act(
    leaf(
      servers,
      'rename <name> <new-name>',
      'rename a server: its approval settings, rules, chat grants, secrets and sign-in go with it',
    ),
    options,
    async (context, name: string, newName: string) => {
      const renamed = await context.session().call('mcp.edit', { name, rename: newName });
      if (context.json) return context.terminal.json(renamed);
      context.terminal.line(`Renamed ${name} to ${renamed.name}.`);
    },
  );

  act(
    leaf(
      servers,
      'accept <name>',
      'after its command or URL changed: let its approval settings, rules and chat grants count for what it runs now',
    ),
    options,
    async (context, name: string) => {
      const server = await context.session().call('mcp.edit', { name, acceptIdentity: true });
      if (context.json) return context.terminal.json(server);
      context.terminal.line(
        `${server.name}'s settings now count for: ${server.identity?.description ?? launchWords(server)}.`,
      );
    },
  );

  act(
    leaf(
      servers,
      'remove <name>',
      'remove a server (its secrets, approval settings, the rules naming it alone and its chat grants too)',
    ),
    options,
    async (context, name: string) => {
      const removed = await context.session().call('mcp.remove', { name });
      if (context.json) return context.terminal.json(removed);
      context.terminal.line(`Removed ${removed.name}.`);
    },
  );

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    act(leaf(servers, `${verb} <name>`, `${verb} a server`), options, async (context, name: string) => {
      const server = await context.session().call('mcp.setEnabled', { name, enabled });
      if (context.json) return context.terminal.json(server);
      context.terminal.line(`${server.name} is ${enabled ? 'enabled' : 'disabled'}.`);
    });
  }

  for (const [verb, trusted] of [
    ['trust', true],
    ['distrust', false],
  ] as const) {
    act(
      leaf(
        servers,
        `${verb} <name>`,
        `${trusted ? 'trust' : 'stop trusting'} a server's tool annotations (readOnlyHint…); the approval policy reads this`,
      ),
      options,
      async (context, name: string) => {
        const server = await context.session().call('mcp.edit', { name, trusted });
        if (context.json) return context.terminal.json(server);
        context.terminal.line(
          `${server.name} is ${trusted ? 'trusted: its read-only tools may run without asking in the mode auto-approve-read-only-trusted' : 'not trusted: its annotations do not count'}.`,
        );
      },
    );
  }

  act(
    leaf(
      servers,
      'sandbox <name>',
      'show what a server may touch in its sandbox, or widen and narrow its profile (docs/user/sandbox.md)',
    )
      .option('--allow-read <path...>', 'let it read this folder or file')
      .option('--allow-write <path...>', 'let it read and write this folder or file')
      .option('--allow-host <host:port...>', 'let it connect to this host and port')
      .option('--allow-env <name...>', "give it this variable of AI Workbench's environment")
      .option('--revoke-read <path...>', 'take back a read grant')
      .option('--revoke-write <path...>', 'take back a write grant')
      .option('--revoke-host <host:port...>', 'take back a host grant')
      .option('--revoke-env <name...>', 'take back a variable')
      .option(
        '--allow-unconfined',
        'let it run outside the sandbox, with all of your rights (for what it runs now, under this name)',
      )
      .option('--revoke-unconfined', 'contain it again')
      .addHelpText(
        'after',
        '\nExamples:\n  workbench servers sandbox Files\n  workbench servers sandbox notes --allow-read /home/me/notes\n  workbench servers sandbox search --allow-host api.example.com:443\n  workbench servers sandbox git --allow-unconfined',
      ),
    options,
    async (
      context,
      name: string,
      flags: Record<string, string[] | undefined> & { allowUnconfined?: boolean; revokeUnconfined?: boolean },
    ) => {
      const session = context.session();
      if (flags.allowUnconfined && flags.revokeUnconfined)
        throw new CliError('Give --allow-unconfined or --revoke-unconfined, not both.');
      const changes: { widen: boolean; grant: SandboxGrant }[] = [];
      for (const [flag, kind] of [
        ['Read', 'read'],
        ['Write', 'write'],
        ['Host', 'connect'],
        ['Env', 'env'],
      ] as const) {
        for (const widen of [true, false]) {
          for (const value of flags[`${widen ? 'allow' : 'revoke'}${flag}`] ?? []) {
            const grant: SandboxGrant =
              kind === 'connect'
                ? { kind, host: value }
                : kind === 'env'
                  ? { kind, name: value }
                  : { kind, path: path.resolve(value) };
            changes.push({ widen, grant });
          }
        }
      }
      let view = await session.call('mcp.sandbox', { name });
      for (const { widen, grant } of changes) {
        view = await session.call(widen ? 'mcp.sandboxWiden' : 'mcp.sandboxNarrow', { name, grant });
        if (!context.json)
          context.terminal.line(
            `${widen ? 'Granted' : 'Took back'}: ${grantWords(view.name, grant)}. The server restarts with its new profile.`,
          );
      }
      if (flags.allowUnconfined || flags.revokeUnconfined) {
        view = await session.call('mcp.sandboxUnconfined', { name, unconfined: Boolean(flags.allowUnconfined) });
        if (!context.json)
          context.terminal.line(
            flags.allowUnconfined
              ? `${view.name} now runs unconfined (Not contained): it can read and change everything you can, reach any host and start any program. This holds while it runs ${view.unconfined?.description ?? 'what it runs now'} under this name. The server restarts.`
              : `${view.name} runs contained again. The server restarts.`,
          );
      }
      if (context.json) return context.terminal.json(view);
      const { colors } = context.terminal;
      if (view.kind === 'remote')
        return context.terminal.line(
          `${view.name} is a remote server: ${view.reason ?? ''} Its sandbox profile does not apply.`,
        );
      if (view.kind === 'not-contained')
        context.terminal.line(colors.bold(`${view.name}: Not contained. ${view.reason ?? ''}`));
      else context.terminal.line(`${view.name} runs contained. It may:`);
      const profile = view.profile;
      if (profile) {
        context.terminal.line(`  read        ${profile.read.join('\n              ')}`);
        context.terminal.line(`  write       ${profile.write.join('\n              ')}`);
        context.terminal.line(`  connect to  ${profile.hosts.join(', ') || 'nothing (no network)'}`);
        context.terminal.line(
          `  variables   ${profile.env.join(', ') || 'none besides PATH, HOME (its scratch folder) and the locale'}`,
        );
      }
      if (view.unconfined?.note) context.terminal.line(`Your allowance to run it unconfined: ${view.unconfined.note}`);
      if (view.limits.lockProfiles) context.terminal.line('Your organisation locks sandbox profiles.');
    },
  );

  serversShowCommand(servers, options);

  act(
    leaf(servers, 'restart <name>', 'start a server afresh (forgetting its crashes) and report whether it comes up'),
    options,
    async (context, name: string) => {
      const session = context.session();
      await session.startServers();
      const server = await session.call('mcp.restart', { name });
      await session.startServers();
      const now = await session
        .call('mcp.list')
        .then(({ servers: list }) => list.find((item) => item.name === server.name) ?? server);
      if (context.json) return context.terminal.json(now);
      context.terminal.line(`${now.name}: ${stateWords(now.status.state, now.status.toolCount, now.status.message)}`);
      if (now.status.state !== 'ready')
        throw new CliError(`${now.name} did not come up; see: workbench servers logs ${now.name}`);
    },
  );

  act(
    leaf(
      servers,
      'login <name>',
      'sign in to an HTTP server that uses OAuth: opens the sign-in page (or prints its address) and waits for it',
    )
      .option('--logout', 'forget the stored tokens instead')
      .option(
        '--client-credentials',
        'sign in as the pre-registered client itself, with its secret or key: no browser (for CI and servers)',
      )
      .option('--id-token-env <NAME>', 'cross-app access: a new ID token, read from this environment variable')
      .option('--id-token-stdin', 'cross-app access: a new ID token, read from stdin'),
    options,
    async (
      context,
      name: string,
      flags: { logout?: boolean; clientCredentials?: boolean; idTokenEnv?: string; idTokenStdin?: boolean },
    ) => {
      const session = context.session();
      const idToken = await readIdToken(flags);
      const known = (await session.call('mcp.list')).servers.find(
        (server) => server.name.toLowerCase() === name.toLowerCase(),
      );
      const crossApp = known?.crossAppAccess !== undefined;
      if (idToken !== undefined && !crossApp)
        throw new CliError(
          `${name} does not sign in through an identity provider (cross-app access); it takes no ID token.`,
        );
      if (crossApp && !flags.logout) {
        // docs/user/mcp-oauth.md#cross-app-access: the ID token for the identity provider, the grant, no browser.
        if (flags.clientCredentials)
          throw new CliError(`${name} signs in through your identity provider, not as its client.`);
        if (idToken !== undefined) await session.call('mcp.edit', { name, idpIdToken: idToken });
        const server = await session.call('mcp.signInAsClient', { name });
        if (context.json) return context.terminal.json({ name: server.name, signedIn: true });
        return context.terminal.line(`Signed in to ${server.name} through your identity provider.`);
      }
      if (flags.clientCredentials) {
        if (flags.logout) throw new CliError('Give --logout or --client-credentials, not both.');
        const server = await session.call('mcp.signInAsClient', { name });
        if (context.json) return context.terminal.json({ name: server.name, signedIn: true });
        return context.terminal.line(`Signed in to ${server.name} as its client.`);
      }
      if (flags.logout) {
        const server = await session.call('mcp.signOut', { name });
        if (context.json) return context.terminal.json(server);
        return context.terminal.line(`Signed out of ${server.name}; its tokens are forgotten.`);
      }
      // docs/user/mcp-oauth.md: the same sign-in as the app's Sign in button, through the same service.
      const started = await session.call('mcp.signIn', { name });
      context.terminal.note(
        started.openedBrowser
          ? `Your browser shows the sign-in page of ${started.name}. If it did not open, open this address:`
          : `Open this address in a browser on this machine to sign in to ${started.name}:`,
      );
      context.terminal.note(started.authorizationUrl);
      context.terminal.note('Waiting for the sign-in to finish (5 minutes at most)…');
      await session.call('mcp.awaitSignIn', { name: started.name });
      if (context.json) return context.terminal.json({ name: started.name, signedIn: true });
      context.terminal.line(`Signed in to ${started.name}.`);
    },
  );

  act(
    leaf(
      servers,
      'logs <name>',
      'start the server and show what it wrote to stderr and what AI Workbench noticed',
    ).option('-n, --lines <count>', 'the last this many lines', integer('--lines', 1, 1000)),
    options,
    async (context, name: string, flags: { lines?: number }) => {
      const session = context.session();
      await session.startServers();
      const logs = await session.call('mcp.logs', { name, ...(flags.lines ? { limit: flags.lines } : {}) });
      if (context.json) return context.terminal.json(logs);
      const { colors } = context.terminal;
      for (const line of logs.lines) {
        const source = line.level
          ? (['debug', 'info', 'notice'].includes(line.level)
              ? colors.dim
              : line.level === 'warning'
                ? colors.yellow
                : colors.red)(`[${line.level}]`)
          : line.source === 'host'
            ? colors.cyan('[workbench]')
            : colors.dim('[stderr]');
        context.terminal.line(
          `${colors.dim(formatTime(line.time))} ${source} ${line.logger ? `${line.logger}: ` : ''}${line.text}`,
        );
      }
      if (logs.lines.length === 0) context.terminal.line(`${logs.name} wrote nothing.`);
    },
  );

  act(
    leaf(
      servers,
      'log-level <name> [level]',
      `show or set the level a server logs at (${MCP_LOG_LEVELS.join(', ')}); sent to it as logging/setLevel`,
    ),
    options,
    async (context, name: string, level: string | undefined) => {
      const session = context.session();
      let server;
      if (level === undefined)
        server = (await session.call('mcp.list')).servers.find(
          (item) => item.name.toLowerCase() === name.toLowerCase(),
        );
      else {
        if (!isOneOf(MCP_LOG_LEVELS, level))
          throw new CliError(`"${level}" is not a log level; use one of: ${MCP_LOG_LEVELS.join(', ')}.`);
        server = await session.call('mcp.edit', { name, logLevel: level });
      }
      if (!server) throw new CliError(`No MCP server is named "${name}".`);
      if (context.json) return context.terminal.json({ name: server.name, logLevel: server.logLevel });
      context.terminal.line(`${server.name} logs at ${server.logLevel} and above.`);
    },
  );

  act(
    leaf(servers, 'tools [name]', "start the servers and list their tools (one server's when named)"),
    options,
    async (context, name: string | undefined) => {
      const session = context.session();
      await session.startServers();
      const { tools } = await session.call('mcp.tools', name === undefined ? undefined : { name });
      if (context.json) return context.terminal.json(tools);
      const { colors } = context.terminal;
      if (tools.length === 0)
        return context.terminal.line(
          name
            ? `${name} offers no tools (is it ready? try: workbench servers list --status)`
            : 'No tools: no server is ready.',
        );
      context.terminal.line(
        table([
          ['SERVER', 'TOOL', 'HINTS', 'DESCRIPTION'].map((cell) => colors.bold(cell)),
          ...tools.map((tool) => [
            tool.serverName,
            tool.name,
            hints(tool.annotations),
            firstLine(tool.description ?? ''),
          ]),
        ]),
      );
    },
  );

  act(
    leaf(
      servers,
      'import <file>',
      'import servers from a Claude Desktop, Cursor or VS Code configuration file (or: claude-desktop, cursor, vscode)',
    )
      .option('--only <names...>', 'import only these servers')
      .option('--dry-run', 'show what would be imported and skipped'),
    options,
    async (context, file: string, flags: { only?: string[]; dryRun?: boolean }) => {
      const source = importSource(file);
      const session = context.session();
      if (flags.dryRun) {
        const preview = await session.call('mcp.importPreview', { source });
        return context.json ? context.terminal.json(preview) : context.terminal.line(JSON.stringify(preview, null, 2));
      }
      const result = await session.call('mcp.import', { source, ...(flags.only ? { only: flags.only } : {}) });
      if (context.json) return context.terminal.json(result);
      context.terminal.line(result.added.length > 0 ? `Imported: ${result.added.join(', ')}` : 'Nothing was imported.');
      for (const skipped of result.skip) context.terminal.line(`Skipped ${skipped.name}: ${skipped.reason}`);
    },
  );
}

/**
 * A pre-registered client's secret or key, never from the command line itself (other local users can read a
 * process's arguments): from an environment variable, stdin or a file (docs/user/mcp-oauth.md#pre-registered-clients).
 */
async function oauthClientSecrets(flags: {
  oauthClientSecretEnv?: string;
  oauthClientSecretStdin?: boolean;
  oauthPrivateKeyFile?: string;
  oauthSigningAlgorithm?: string;
}): Promise<{
  oauthClientSecret?: string;
  oauthPrivateKey?: { pem: string; algorithm: OAuthPrivateKey['algorithm'] };
}> {
  if (flags.oauthClientSecretEnv !== undefined && flags.oauthClientSecretStdin)
    throw new CliError('Give the client secret one way: --oauth-client-secret-env or --oauth-client-secret-stdin.');
  let secret: string | undefined;
  if (flags.oauthClientSecretEnv !== undefined) {
    secret = process.env[flags.oauthClientSecretEnv];
    if (!secret)
      throw new CliError(
        `--oauth-client-secret-env names ${flags.oauthClientSecretEnv}, but that environment variable is not set.`,
      );
  }
  if (flags.oauthClientSecretStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
    secret = Buffer.concat(chunks).toString('utf8').trim();
    if (!secret) throw new CliError('--oauth-client-secret-stdin: nothing came on stdin.');
  }
  let privateKey: { pem: string; algorithm: OAuthPrivateKey['algorithm'] } | undefined;
  if (flags.oauthPrivateKeyFile !== undefined) {
    const algorithm = flags.oauthSigningAlgorithm;
    if (!isOneOf(OAUTH_SIGNING_ALGORITHMS, algorithm))
      throw new CliError(`--oauth-signing-algorithm takes one of ${OAUTH_SIGNING_ALGORITHMS.join(', ')}.`);
    try {
      privateKey = { pem: fs.readFileSync(flags.oauthPrivateKeyFile, 'utf8'), algorithm };
    } catch (error) {
      throw new CliError(`Cannot read ${flags.oauthPrivateKeyFile}: ${(error as Error).message}`);
    }
  }
  return {
    ...(secret !== undefined ? { oauthClientSecret: secret } : {}),
    ...(privateKey ? { oauthPrivateKey: privateKey } : {}),
  };
}

/** Cross-app access's settings and secrets, the secrets never from the command line itself. */
async function crossAppAccessFlags(flags: {
  idpIssuer?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  idpClientSecretEnv?: string;
  idTokenEnv?: string;
  idTokenStdin?: boolean;
  oauthClientSecretStdin?: boolean;
}): Promise<{ crossAppAccess?: CrossAppAccess; idpClientSecret?: string; idpIdToken?: string }> {
  const given =
    flags.idpTokenEndpoint !== undefined ||
    flags.idpClientSecretEnv !== undefined ||
    flags.idTokenEnv !== undefined ||
    flags.idTokenStdin;
  if ((flags.idpIssuer === undefined) !== (flags.idpClientId === undefined) || (given && flags.idpIssuer === undefined))
    throw new CliError(
      'Cross-app access needs --idp-issuer and --idp-client-id together (with --oauth-client-id and its secret).',
    );
  if (flags.idpIssuer === undefined || flags.idpClientId === undefined) return {};
  if (flags.idTokenStdin && flags.oauthClientSecretStdin)
    throw new CliError('Only one secret can come on stdin: give the other through an environment variable.');
  const idpClientSecret =
    flags.idpClientSecretEnv === undefined ? undefined : fromEnv('--idp-client-secret-env', flags.idpClientSecretEnv);
  const idpIdToken = await readIdToken(flags);
  return {
    crossAppAccess: {
      idpIssuer: flags.idpIssuer,
      idpClientId: flags.idpClientId,
      ...(flags.idpTokenEndpoint !== undefined ? { idpTokenEndpoint: flags.idpTokenEndpoint } : {}),
    },
    ...(idpClientSecret !== undefined ? { idpClientSecret } : {}),
    ...(idpIdToken !== undefined ? { idpIdToken } : {}),
  };
}

/** The person's ID token (cross-app access): from an environment variable or stdin, never from the command line. */
async function readIdToken(flags: { idTokenEnv?: string; idTokenStdin?: boolean }): Promise<string | undefined> {
  if (flags.idTokenEnv !== undefined && flags.idTokenStdin)
    throw new CliError('Give the ID token one way: --id-token-env or --id-token-stdin.');
  if (flags.idTokenEnv !== undefined) return fromEnv('--id-token-env', flags.idTokenEnv);
  if (!flags.idTokenStdin) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  const token = Buffer.concat(chunks).toString('utf8').trim();
  if (!token) throw new CliError('--id-token-stdin: nothing came on stdin.');
  return token;
}

function fromEnv(flag: string, name: string): string {
  const value = process.env[name];
  if (!value) throw new CliError(`${flag} names ${name}, but that environment variable is not set.`);
  return value;
}

function importSource(
  file: string,
): { app: 'claude-desktop' | 'cursor' | 'vscode' } | { fileName: string; text: string } {
  if (file === 'claude-desktop' || file === 'cursor' || file === 'vscode') return { app: file };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  return { fileName: path.resolve(file), text };
}

function pairs(flag: string, values: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0) throw new CliError(`${flag} takes NAME=VALUE, not ${JSON.stringify(value)}.`);
    result[value.slice(0, at)] = value.slice(at + 1);
  }
  return result;
}

function grantWords(name: string, grant: SandboxGrant): string {
  if (grant.kind === 'connect') return `${name} may connect to ${grant.host}`;
  if (grant.kind === 'env') return `${name} receives ${grant.name}`;
  return `${name} may ${grant.kind === 'write' ? 'read and write' : 'read'} ${grant.path}`;
}

function hints(
  annotations: { readOnlyHint?: boolean | undefined; destructiveHint?: boolean | undefined } | undefined,
): string {
  if (!annotations) return '';
  return [annotations.readOnlyHint ? 'read-only' : '', annotations.destructiveHint ? 'destructive' : '']
    .filter(Boolean)
    .join(',');
}

export function firstLine(text: string, max = 70): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
