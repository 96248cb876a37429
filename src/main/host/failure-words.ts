/**
 * An internal error of a contract call, as a person reads it (docs/dev/architecture.md, errors): a sentence naming
 * what could not be done and what it was about (the tool and its server, the server, the provider) — never the
 * method's name or an id. The method and the cause's words go into `details` and the log, for whoever looks further.
 */
import type { WorkbenchErrorData } from '../../shared/errors';

/** What a call does, as "Could not …" ends; methods not named here use their namespace's words. */
const ACTIONS: Record<string, string> = {
  'chat.create': 'create the chat',
  'chat.list': 'list the chats',
  'chat.get': 'open the chat',
  'chat.rename': 'rename the chat',
  'chat.delete': 'delete the chat',
  'chat.configure': "change the chat's settings",
  'chat.messages': "load the chat's messages",
  'chat.send': 'send the message',
  'chat.stop': 'stop the reply',
  'chat.cancelTask': 'cancel the task',
  'policy.get': 'read the approval settings',
  'policy.update': 'save the approval settings',
  'policy.explain': 'explain the decision',
  'approvals.pending': 'list the waiting calls',
  'approvals.setChatMode': "change the chat's approval mode",
  'approvals.rememberOptions': 'list what can be remembered',
  'mcp.list': 'list the MCP servers',
  'mcp.add': 'add the server',
  'mcp.edit': 'save the server',
  'mcp.remove': 'remove the server',
  'mcp.setEnabled': 'switch the server on or off',
  'mcp.restart': 'restart the server',
  'mcp.logs': "read the server's log",
  'mcp.tools': "list the server's tools",
  'mcp.resources': "list the server's resources",
  'mcp.readResource': 'read the resource',
  'mcp.prompts': "list the server's prompts",
  'mcp.getPrompt': 'get the prompt',
  'mcp.signIn': 'sign in to the server',
  'mcp.signOut': 'sign out of the server',
  'mcp.sandbox': "read the server's sandbox",
  'mcp.sandboxWiden': "widen the server's sandbox",
  'mcp.sandboxNarrow': "narrow the server's sandbox",
  'apps.callTool': 'run the tool',
  'providers.list': 'list the providers',
  'providers.add': 'add the provider',
  'providers.update': 'save the provider',
  'providers.remove': 'remove the provider',
  'providers.test': 'test the provider',
  'providers.models': "list the provider's models",
  'audit.query': 'read the audit log',
  'audit.export': 'export the audit log',
  'audit.verify': 'verify the audit log',
  'audit.saveShippingSink': 'save the audit sink',
  'audit.removeShippingSink': 'remove the audit sink',
};

const NAMESPACES: Record<string, string> = {
  app: 'do that',
  settings: 'read the settings',
  chat: 'do that in the chat',
  providers: 'do that with the provider',
  policy: 'do that with the approval settings',
  grants: 'do that with the grants',
  approvals: 'do that with the approvals',
  serverRequests: "answer the server's request",
  mcp: 'do that with the server',
  apps: "do that for the server's app",
  audit: 'do that with the audit log',
};

/** The thing a call was about, by the names in its input: "Files.read_file", "the server Files". */
function subjectOf(method: string, input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const named = input as Record<string, unknown>;
  const text = (key: string): string | undefined =>
    typeof named[key] === 'string' && named[key] !== '' ? (named[key] as string) : undefined;
  // A server is `name` in the MCP methods (McpServerRefInputSchema), `serverName` elsewhere.
  const server = text('serverName') ?? (method.startsWith('mcp.') ? text('name') : undefined);
  const tool = text('toolName') ?? text('tool');
  if (tool && server) return ` (the tool ${tool} of ${server})`;
  if (tool) return ` (the tool ${tool})`;
  if (server) return ` (${server})`;
  const provider = text('providerId');
  return provider ? ` (the provider ${provider})` : '';
}

/** The error a person is shown for an internal failure of `method` called with `input`. */
export function internalFailure(method: string, input: unknown, cause: unknown): WorkbenchErrorData {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const action = ACTIONS[method] ?? NAMESPACES[method.split('.')[0] ?? ''] ?? 'do that';
  const said = reason.trim().replace(/[.\s]+$/, '');
  return {
    code: 'internal',
    message: `Could not ${action}${subjectOf(method, input)}: ${said || 'an unexpected error'}. The details are in the app's log.`,
    details: { method, cause: reason },
  };
}

/** A handler's result that does not match the contract: the app's own fault, said so. */
export function internalMismatch(method: string, input: unknown): WorkbenchErrorData {
  const action = ACTIONS[method] ?? NAMESPACES[method.split('.')[0] ?? ''] ?? 'do that';
  return {
    code: 'internal',
    message: `Could not ${action}${subjectOf(method, input)}: the app gave an answer it does not understand. The details are in the app's log.`,
    details: { method },
  };
}
