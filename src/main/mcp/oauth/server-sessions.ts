import type { CrossAppAccess } from '../../../shared/mcp';
import type { SecretStore } from '../../settings/secret-store';
import type {
  LaunchConfig,
  McpServerConfigService,
  OAuthClientSecrets,
  ServerConfigView,
} from '../server-config-service';
import type { PreRegisteredClient } from './oauth-provider';
import { DEFAULT_CLIENT_METADATA_URL, createOAuthSession, type OAuthSession } from './oauth-session';

/** How OAuth clients identify themselves, as the organisation sets it (docs/user/mcp-oauth.md#client-registration). */
export interface OAuthPolicy {
  /** The client metadata document's URL (a URL-based client id); DEFAULT_CLIENT_METADATA_URL when unset. */
  clientMetadataUrl?: string | undefined;
  /** Pre-registered clients by authorization server (its issuer URL). */
  clients?: Record<string, { clientId: string; clientSecret?: string | undefined }> | undefined;
}

/** The OAuth sessions of the host's HTTP servers: one per server and URL, so a reconnect shares a refresh in flight. */
export interface ServerOAuthSessions {
  /** The session of an HTTP server that signs in with OAuth; undefined for stdio, own Authorization or no secret store. */
  forLaunch(launch: LaunchConfig): OAuthSession | undefined;
  /** Whether the server holds tokens; undefined for a server that does not sign in. */
  signedIn(server: ServerConfigView): boolean | undefined;
  /** The server left the settings: its session in memory is dropped. */
  forget(name: string): void;
}

/** Whether the server's own headers carry its credentials (then AI Workbench does not do OAuth for it). */
function hasOwnAuthorization(launch: Extract<LaunchConfig, { kind: 'http' }>): boolean {
  return Object.keys(launch.headers).some((header) => header.toLowerCase() === 'authorization');
}

export function createServerOAuthSessions({
  config,
  secrets,
  oauthPolicy,
}: {
  config: McpServerConfigService;
  secrets?: SecretStore | undefined;
  oauthPolicy?: (() => OAuthPolicy) | undefined;
}): ServerOAuthSessions {
  const sessions = new Map<string, { key: string; session: OAuthSession }>();
  const sessionFor = (
    name: string,
    url: string,
    clientId: string | undefined,
    clientSecrets?: OAuthClientSecrets,
    crossAppAccess?: CrossAppAccess,
  ): OAuthSession | undefined => {
    if (!secrets) return undefined;
    const policy = oauthPolicy?.() ?? {};
    const client =
      clientId === undefined
        ? undefined
        : { clientId, clientSecret: clientSecrets?.secret, privateKey: clientSecrets?.privateKey };
    const clientMetadataUrl = policy.clientMetadataUrl ?? DEFAULT_CLIENT_METADATA_URL;
    const crossApp = crossAppAccess && {
      ...crossAppAccess,
      idpClientSecret: clientSecrets?.idpClientSecret,
      idToken: clientSecrets?.idToken,
    };
    const key = JSON.stringify([url, client, clientMetadataUrl, policy.clients, crossApp]);
    const known = sessions.get(name);
    if (known?.key === key) return known.session;
    const organisationClient = (issuer: string): PreRegisteredClient | undefined =>
      policy.clients?.[issuer] ?? policy.clients?.[issuer.replace(/\/$/, '')];
    const session = createOAuthSession({
      secrets,
      serverName: name,
      serverUrl: url,
      client,
      organisationClient,
      clientMetadataUrl,
      crossApp,
    });
    sessions.set(name, { key, session });
    return session;
  };
  const forLaunch = (launch: LaunchConfig): OAuthSession | undefined =>
    launch.kind === 'http' && !hasOwnAuthorization(launch)
      ? sessionFor(launch.name, launch.url, launch.oauthClientId, launch.oauthClient, launch.crossAppAccess)
      : undefined;
  return {
    forLaunch,
    signedIn(server) {
      if (server.kind !== 'http' || !server.url) return undefined;
      try {
        return forLaunch(config.launchConfig(server.name))?.hasTokens();
      } catch {
        return undefined;
      }
    },
    forget: (name) => void sessions.delete(name),
  };
}
