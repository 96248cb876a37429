import { WorkbenchError } from '../errors';
import type { McpHost, McpHostDependencies } from './mcp-host';
import type { ServerOAuthSessions } from './oauth/server-sessions';
import type { LaunchConfig } from './server-config-service';
import type { ServerFleet } from './server-fleet';

/** The host's sign-in flows for HTTP servers that use OAuth (docs/user/mcp-oauth.md). */
export type ServerSignIn = Pick<McpHost, 'signIn' | 'awaitSignIn' | 'signInAsClient' | 'signOut'>;

export function createServerSignIn({
  config,
  fleet,
  oauth,
  openSignInPage,
}: Pick<McpHostDependencies, 'config' | 'openSignInPage'> & {
  fleet: ServerFleet;
  oauth: ServerOAuthSessions;
}): ServerSignIn {
  const signIns = new Map<string, { cancel(): void; done: Promise<void> }>();
  /** A sign-in talks to the server: not to one whose identity waits to be accepted (docs/user/approvals.md). */
  const requireAccepted = (name: string): void => {
    if (fleet.require(name).identityChanged)
      throw new WorkbenchError(
        'unavailable',
        `Accept what "${name}" runs first (Use my settings for what it runs now, or workbench servers accept ${name}): until then it is not contacted, not even to sign in.`,
        { name },
      );
  };
  return {
    async signIn(name) {
      requireAccepted(name);
      fleet.startDeferred();
      let launch: LaunchConfig;
      try {
        launch = config.launchConfig(name);
      } catch (error) {
        throw new WorkbenchError('unavailable', (error as Error).message, { name });
      }
      const session = oauth.forLaunch(launch);
      if (!session) {
        throw new WorkbenchError(
          'invalid_input',
          launch.kind === 'http'
            ? `"${name}" sends its own Authorization header; it does not sign in with OAuth.`
            : `"${name}" is not an HTTP server; only HTTP servers sign in.`,
          { name },
        );
      }
      signIns.get(name)?.cancel();
      const entry = fleet.running(name);
      let started;
      try {
        started = await session.signIn({ open: (url) => openSignInPage?.(url) ?? false });
      } catch (error) {
        const message = `Sign-in could not start: ${describeSignInError(error)}`;
        entry?.logs.push('host', message);
        entry?.supervisor.noteSignIn(message);
        throw new WorkbenchError('unavailable', message, { name });
      }
      entry?.logs.push(
        'host',
        `Sign-in started${started.openedBrowser ? ' in the browser' : ''}: waiting for the browser to come back.`,
      );
      entry?.supervisor.noteSignIn(
        started.openedBrowser ? 'Finish signing in in your browser.' : 'Waiting for you to sign in.',
      );
      const pending = { cancel: started.cancel, done: started.done };
      signIns.set(name, pending);
      started.done.then(
        () => {
          if (signIns.get(name) === pending) signIns.delete(name);
          entry?.logs.push('host', 'Signed in.');
          // Tokens are stored: connect again now (the host may have stopped or the server been disabled meanwhile).
          if (
            fleet.isRunning() &&
            fleet.entry(name) === entry &&
            config.list().find((item) => item.name === name)?.enabled
          )
            void entry?.supervisor.restart();
          else fleet.emitServer(name);
        },
        (error: unknown) => {
          if (signIns.get(name) === pending) signIns.delete(name);
          const message = `Sign-in failed: ${describeSignInError(error)}`;
          entry?.logs.push('host', message);
          entry?.supervisor.noteSignIn(message);
        },
      );
      return { name, authorizationUrl: started.authorizationUrl, openedBrowser: started.openedBrowser };
    },
    async awaitSignIn(name) {
      fleet.require(name);
      const pending = signIns.get(name);
      if (!pending) throw new WorkbenchError('not_found', `No sign-in is in progress for "${name}".`, { name });
      try {
        await pending.done;
      } catch (error) {
        throw new WorkbenchError('unauthorized', `Sign-in failed: ${describeSignInError(error)}`, { name });
      }
    },
    async signInAsClient(name) {
      requireAccepted(name);
      const server = fleet.require(name);
      fleet.startDeferred();
      const session = oauth.forLaunch(config.launchConfig(name));
      if (!session) throw new WorkbenchError('invalid_input', `"${name}" does not sign in with OAuth.`, { name });
      const entry = fleet.running(name);
      try {
        await session.signInAsClient();
      } catch (error) {
        const how = session.crossApp ? 'through the identity provider' : 'with client credentials';
        const message = `Sign-in ${how} failed: ${describeSignInError(error)}`;
        entry?.logs.push('host', message);
        entry?.supervisor.noteSignIn(message);
        throw new WorkbenchError('unauthorized', message, { name });
      }
      entry?.logs.push(
        'host',
        session.crossApp ? 'Signed in through the identity provider.' : 'Signed in with client credentials.',
      );
      if (fleet.isRunning() && server.enabled) await fleet.entry(name)?.supervisor.restart();
      else fleet.emitServer(name);
      return fleet.viewOf(fleet.require(name));
    },
    async signOut(name) {
      const server = fleet.require(name);
      fleet.startDeferred();
      oauth.forLaunch(config.launchConfig(name))?.signOut();
      if (fleet.isRunning() && server.enabled) await fleet.entry(name)?.supervisor.restart();
      return fleet.viewOf(fleet.require(name));
    },
  };
}

function describeSignInError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\.$/, '') + '.';
}
