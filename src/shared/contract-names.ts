/**
 * The names of the contract's methods and events, without their schemas (contract.ts): what a bridge needs to
 * build `window.workbench` and route frames. Kept apart so the page's first screen loads no zod schema at all
 * (docs/dev/benchmarks.md, app-start). contract.ts checks, at compile time, that these lists and its own maps
 * name exactly the same methods and events.
 */
export const methodNames = [
  'app.info',
  'settings.problem',
  'chat.create',
  'chat.list',
  'chat.get',
  'chat.rename',
  'chat.delete',
  'chat.configure',
  'chat.messages',
  'chat.send',
  'chat.stop',
  'chat.cancelTask',
  'providers.list',
  'providers.add',
  'providers.update',
  'providers.remove',
  'providers.test',
  'providers.models',
  'providers.probeLocal',
  'policy.get',
  'policy.update',
  'policy.explain',
  'grants.list',
  'grants.revoke',
  'approvals.pending',
  'approvals.getChatMode',
  'approvals.setChatMode',
  'serverRequests.list',
  'serverRequests.decide',
  'serverRequests.requestWidening',
  'approvals.rememberOptions',
  'mcp.list',
  'mcp.add',
  'mcp.edit',
  'mcp.remove',
  'mcp.setEnabled',
  'mcp.restart',
  'mcp.logs',
  'mcp.tools',
  'mcp.resources',
  'mcp.readResource',
  'mcp.appView',
  'mcp.acceptAppView',
  'apps.callTool',
  'apps.readResource',
  'apps.openLink',
  'apps.recordRefusal',
  'apps.bindFrameSlot',
  'mcp.subscribeResource',
  'mcp.unsubscribeResource',
  'mcp.prompts',
  'mcp.getPrompt',
  'mcp.complete',
  'mcp.importPreview',
  'mcp.import',
  'mcp.signIn',
  'mcp.awaitSignIn',
  'mcp.signOut',
  'mcp.sandbox',
  'mcp.sandboxWiden',
  'mcp.sandboxNarrow',
  'mcp.sandboxUnconfined',
  'mcp.signInAsClient',
  'mcp.organisationIdp',
  'audit.query',
  'audit.export',
  'audit.verify',
  'audit.exportPrepare',
  'audit.exportRead',
  'audit.shippingStatus',
  'audit.shippingSinks',
  'audit.saveShippingSink',
  'audit.removeShippingSink',
  'audit.checkpoints',
  'audit.setCheckpoints',
  'audit.verifyAgainst',
  'audit.stats',
  'audit.suggestions',
  'audit.acceptSuggestion',
] as const;

export const eventNames = [
  'app.onDidRequestChat',
  'chat.onDidChange',
  'chat.onDidStream',
  'providers.onDidChange',
  'policy.onDidChange',
  'grants.onDidChange',
  'approvals.onDidChange',
  'serverRequests.onDidChange',
  'mcp.onDidChangeServer',
  'mcp.onDidChangeTools',
  'mcp.onDidUpdateResource',
  'audit.onDidProgress',
  'settings.onDidReload',
] as const;

export type MethodName = (typeof methodNames)[number];
export type EventName = (typeof eventNames)[number];

const METHODS: ReadonlySet<string> = new Set(methodNames);
const EVENTS: ReadonlySet<string> = new Set(eventNames);

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && METHODS.has(name);
}
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && EVENTS.has(name);
}
