import type { KeyObject } from 'node:crypto';
import { publicKeyFrom } from '../audit/checkpoint';
import { wideningView } from '../approval/sandbox-widenings';
import { WorkbenchError } from '../errors';
import type { Services } from '../services';
import { waitingApprovals, waitingRequests } from '../what-waits';
import type { MethodHandlers } from './dispatcher';

/** The contract's methods, each bound to the service that answers it. Translation only: no logic here. */
export function createHandlers(services: Services): MethodHandlers {
  return {
    'app.info': () => services.appInfo(),
    'settings.problem': () => {
      const problem = services.settingsWatch.problem();
      return { problem: problem && { file: problem.file, message: problem.message } };
    },
    'chat.create': (input) => services.chats.create(input),
    'chat.list': () => ({ chats: services.chats.list() }),
    'chat.get': ({ id }) => services.chats.get(id),
    'chat.rename': ({ id, title }) => services.chats.rename(id, title),
    'chat.delete': ({ id }) => {
      services.chats.delete(id);
      return { id };
    },
    'chat.configure': (input) => services.chats.configure(input),
    'chat.messages': ({ chatId, beforeSeq, limit }) => services.conversations.messages(chatId, { beforeSeq, limit }),
    'chat.send': ({ chatId, message }) => services.conversations.send(chatId, message),
    'chat.stop': ({ chatId }) => services.conversations.stop(chatId),
    'chat.cancelTask': ({ chatId, toolCallId }) => services.conversations.cancelTask(chatId, toolCallId),
    'providers.list': () => ({ providers: services.providers.list() }),
    'providers.add': (input) => services.providers.add(input),
    'providers.update': (input) => services.providers.update(input),
    'providers.remove': ({ id }) => {
      services.providers.remove(id);
      return { id };
    },
    'providers.test': ({ id }) => services.providers.test(id),
    'providers.probeLocal': (input) => services.providers.probeLocal(input),
    'providers.models': async ({ id }) => ({ models: await services.providers.models(id) }),
    'policy.get': () => services.approvals.policy.view(),
    'policy.update': (change) => services.approvals.policy.update(change),
    'policy.explain': (input) => services.approvals.gate.explain(input),
    'grants.list': (input) => ({ grants: services.approvals.chats.grants(input?.chatId) }),
    'grants.revoke': ({ chatId, server, tool }) => ({ revoked: services.approvals.chats.revoke(chatId, server, tool) }),
    'approvals.pending': ({ chatId }) => ({
      approvals: chatId === undefined ? waitingApprovals(services) : services.approvals.chats.pending(chatId),
    }),
    'approvals.getChatMode': ({ chatId }) => ({ chatId, mode: services.approvals.chats.mode(chatId) }),
    'approvals.rememberOptions': (input) => services.approvals.chats.rememberOptions(input),
    'approvals.setChatMode': ({ chatId, mode }) => ({ chatId, mode: services.approvals.chats.setMode(chatId, mode) }),
    'serverRequests.list': (input) => ({ requests: waitingRequests(services, input?.chatId) }),
    'serverRequests.decide': ({ id, decision }) =>
      services.sandboxWidenings.get(id)
        ? services.sandboxWidenings.answer(id, decision)
        : services.decideServerRequest(id, decision),
    'serverRequests.requestWidening': (input) => wideningView(services.sandboxWidenings.request(input)),
    'mcp.list': () => ({ servers: services.mcp.list() }),
    'mcp.add': ({ name, server }) => services.mcp.server(services.mcpServers.add(name, server).name),
    'mcp.edit': (change) => services.mcp.server(services.mcpServers.edit(change).name),
    'mcp.remove': ({ name }) => {
      services.mcpServers.remove(name);
      return { name };
    },
    'mcp.setEnabled': ({ name, enabled }) => services.mcp.server(services.mcpServers.setEnabled(name, enabled).name),
    'mcp.restart': ({ name }) => services.mcp.restart(services.mcpServers.get(name).name),
    'mcp.logs': ({ name, limit }) => services.mcp.logs(services.mcpServers.get(name).name, limit),
    'mcp.resources': ({ name }) => services.mcp.resources(services.mcpServers.get(name).name),
    'mcp.readResource': ({ name, uri }) => services.mcp.readResource(services.mcpServers.get(name).name, uri),
    'mcp.appView': ({ name, tool }) => services.appViews.show(services.mcpServers.get(name).name, tool),
    'mcp.acceptAppView': ({ name, tool, hash }) =>
      services.appViews.accept(services.mcpServers.get(name).name, tool, hash),
    'apps.callTool': (input) => services.appCalls.callTool(input),
    'apps.readResource': (input) => services.appCalls.readResource(input),
    'apps.openLink': (input) => services.appCalls.openLink(input),
    'apps.recordRefusal': (input) => {
      services.appCalls.recordRefusal(input);
      return {};
    },
    'apps.bindFrameSlot': (input) => {
      services.appFrameSlots.bind(input);
      return {};
    },
    'mcp.subscribeResource': ({ name, uri }) =>
      services.mcp.subscribeResource(services.mcpServers.get(name).name, uri, true),
    'mcp.unsubscribeResource': ({ name, uri }) =>
      services.mcp.subscribeResource(services.mcpServers.get(name).name, uri, false),
    'mcp.prompts': ({ name }) =>
      services.mcp.prompts(name === undefined ? undefined : services.mcpServers.get(name).name),
    'mcp.getPrompt': ({ name, prompt, arguments: args }) =>
      services.mcp.getPrompt(services.mcpServers.get(name).name, prompt, args),
    'mcp.complete': ({ name, prompt, argument, value, context }) =>
      services.mcp.completePromptArgument(services.mcpServers.get(name).name, prompt, argument, value, context),
    'mcp.tools': (input) => ({
      tools: services.mcp.tools(input?.name === undefined ? undefined : services.mcpServers.get(input.name).name),
    }),
    'mcp.importPreview': ({ source }) => services.mcpServers.previewImport(source),
    'mcp.import': ({ source, only }) => services.mcpServers.import(source, only),
    'mcp.signIn': ({ name }) => services.mcp.signIn(services.mcpServers.get(name).name),
    'mcp.awaitSignIn': async ({ name }) => {
      const server = services.mcpServers.get(name).name;
      await services.mcp.awaitSignIn(server);
      return { name: server, signedIn: true as const };
    },
    'mcp.signOut': ({ name }) => services.mcp.signOut(services.mcpServers.get(name).name),
    'mcp.sandbox': ({ name }) => services.sandboxProfiles.view(name),
    'mcp.sandboxWiden': ({ name, grant }) => {
      services.sandboxProfiles.widen(name, grant);
      return services.sandboxProfiles.view(name);
    },
    'mcp.sandboxNarrow': ({ name, grant }) => {
      services.sandboxProfiles.narrow(name, grant);
      return services.sandboxProfiles.view(name);
    },
    'mcp.sandboxUnconfined': ({ name, unconfined }) => {
      services.sandboxProfiles.setUnconfined(name, unconfined);
      return services.sandboxProfiles.view(name);
    },
    'mcp.signInAsClient': ({ name }) => services.mcp.signInAsClient(services.mcpServers.get(name).name),
    'mcp.organisationIdp': ({ name, url }) => ({
      identityProvider: services.mcpServers.organisationIdpFor(name, url) ?? null,
    }),
    'audit.query': (query) => services.audit.query(query),
    // Only into the data folder's exports/ (export-folder.ts); the CLI's --out calls services.audit.export itself.
    'audit.export': (request) =>
      services.auditExports.export(request, (done, total) =>
        services.events.emit('audit.onDidProgress', { operation: 'export', done, total }),
      ),
    'audit.verify': (request) =>
      services.audit.verify({
        anchor: request?.anchor,
        checkpointKey: checkpointKeyOf(request?.checkpointPublicKey),
        onProgress: (done, total) => services.events.emit('audit.onDidProgress', { operation: 'verify', done, total }),
      }),
    'audit.exportPrepare': ({ format }) =>
      services.auditDownloads.prepare(format, (done, total) =>
        services.events.emit('audit.onDidProgress', { operation: 'export', done, total }),
      ),
    'audit.exportRead': ({ exportId, offset }) => services.auditDownloads.read(exportId, offset),
    'audit.shippingStatus': () => services.auditShipping.status(),
    'audit.shippingSinks': () => services.shippingSettings.list(),
    'audit.saveShippingSink': (input) => services.shippingSettings.save(input),
    'audit.removeShippingSink': ({ id }) => services.shippingSettings.remove(id),
    'audit.checkpoints': () => services.checkpointer.view(),
    'audit.setCheckpoints': (change) => services.checkpointer.update(change),
    'audit.verifyAgainst': ({ path, checkpointPublicKey }) =>
      services.auditReceived.verifyAgainst(path, { checkpointKey: checkpointKeyOf(checkpointPublicKey) }),
    'audit.stats': (query) => services.auditInsights.stats(query),
    'audit.suggestions': (input) => services.auditInsights.suggestions(input?.days),
    'audit.acceptSuggestion': ({ id, days }) => services.auditInsights.accept(id, days),
  };
}

/** A public key given as PEM (`workbench audit verify --public-key`), refused by name when it is not an Ed25519 key. */
function checkpointKeyOf(pem: string | undefined): KeyObject | undefined {
  if (pem === undefined) return undefined;
  try {
    return publicKeyFrom(pem);
  } catch (error) {
    throw new WorkbenchError(
      'invalid_input',
      `The checkpoint public key cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
