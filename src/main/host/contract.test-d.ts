// Proves that the preload/bridge API, the main process's handler map and the contract's method map agree.
import { describe, expectTypeOf, it } from 'vitest';
import type { Unsubscribe, WorkbenchApi } from '../../shared/api';
import type { AppChatRequest, AppInfo } from '../../shared/app';
import type { Chat, ChatChange } from '../../shared/chat';
import type {
  EventName,
  EventPayload,
  MethodInput,
  MethodName,
  MethodOutput,
  MethodParsedInput,
} from '../../shared/contract';
import type { McpServerChange, McpToolsChange } from '../../shared/mcp';
import type { ChatStreamEvent } from '../../shared/messages';
import type { Services } from '../services';
import type { MethodHandlers } from './dispatcher';
import { createHandlers } from './handlers';

declare const workbench: WorkbenchApi;
declare const chat: Chat;
declare const services: Services;

describe('the contract', () => {
  // One check per namespace, so that branches adding methods to different namespaces do not touch the same lines.
  type In<N extends string, U> = Extract<U, `${N}.${string}`>;
  it('names the app and chat methods', () => {
    expectTypeOf<In<'app', MethodName>>().toEqualTypeOf<'app.info'>();
    expectTypeOf<In<'app', EventName>>().toEqualTypeOf<'app.onDidRequestChat'>();
    expectTypeOf<EventPayload<'app.onDidRequestChat'>>().toEqualTypeOf<AppChatRequest>();
    expectTypeOf<In<'chat', MethodName>>().toEqualTypeOf<
      | 'chat.create'
      | 'chat.list'
      | 'chat.get'
      | 'chat.rename'
      | 'chat.delete'
      | 'chat.configure'
      | 'chat.messages'
      | 'chat.send'
      | 'chat.stop'
      | 'chat.cancelTask'
    >();
    expectTypeOf<In<'chat', EventName>>().toEqualTypeOf<'chat.onDidChange' | 'chat.onDidStream'>();
    expectTypeOf<EventPayload<'chat.onDidChange'>>().toEqualTypeOf<ChatChange>();
    expectTypeOf<EventPayload<'chat.onDidStream'>>().toEqualTypeOf<ChatStreamEvent>();
  });
  it('names the providers methods', () => {
    expectTypeOf<In<'providers', MethodName>>().toEqualTypeOf<
      | 'providers.list'
      | 'providers.add'
      | 'providers.update'
      | 'providers.remove'
      | 'providers.test'
      | 'providers.models'
      | 'providers.probeLocal'
    >();
    expectTypeOf<In<'providers', EventName>>().toEqualTypeOf<'providers.onDidChange'>();
  });
  it('names the approval methods', () => {
    expectTypeOf<In<'policy', MethodName>>().toEqualTypeOf<'policy.get' | 'policy.update' | 'policy.explain'>();
    expectTypeOf<In<'grants', MethodName>>().toEqualTypeOf<'grants.list' | 'grants.revoke'>();
    expectTypeOf<In<'approvals', MethodName>>().toEqualTypeOf<
      'approvals.pending' | 'approvals.getChatMode' | 'approvals.setChatMode' | 'approvals.rememberOptions'
    >();
    expectTypeOf<In<'policy' | 'grants' | 'approvals', EventName>>().toEqualTypeOf<
      'policy.onDidChange' | 'grants.onDidChange' | 'approvals.onDidChange'
    >();
  });
  it('names the server requests apart from tool calls: sampling, elicitation, sandbox widening and app calls', () => {
    expectTypeOf<In<'serverRequests', MethodName>>().toEqualTypeOf<
      'serverRequests.list' | 'serverRequests.decide' | 'serverRequests.requestWidening'
    >();
    expectTypeOf<In<'serverRequests', EventName>>().toEqualTypeOf<'serverRequests.onDidChange'>();
    expectTypeOf<EventPayload<'serverRequests.onDidChange'>['request']['kind']>().toEqualTypeOf<
      'sampling' | 'elicitation' | 'sandbox-widening' | 'app-tool-call'
    >();
  });
  it('names the mcp methods', () => {
    expectTypeOf<In<'mcp', MethodName>>().toEqualTypeOf<
      | 'mcp.list'
      | 'mcp.add'
      | 'mcp.edit'
      | 'mcp.remove'
      | 'mcp.setEnabled'
      | 'mcp.restart'
      | 'mcp.logs'
      | 'mcp.tools'
      | 'mcp.resources'
      | 'mcp.readResource'
      | 'mcp.appView'
      | 'mcp.acceptAppView'
      | 'mcp.subscribeResource'
      | 'mcp.unsubscribeResource'
      | 'mcp.prompts'
      | 'mcp.getPrompt'
      | 'mcp.complete'
      | 'mcp.importPreview'
      | 'mcp.import'
      | 'mcp.signIn'
      | 'mcp.awaitSignIn'
      | 'mcp.signOut'
      | 'mcp.sandbox'
      | 'mcp.sandboxWiden'
      | 'mcp.sandboxNarrow'
      | 'mcp.sandboxUnconfined'
      | 'mcp.signInAsClient'
      | 'mcp.organisationIdp'
    >();
    expectTypeOf<In<'mcp', EventName>>().toEqualTypeOf<
      'mcp.onDidChangeServer' | 'mcp.onDidChangeTools' | 'mcp.onDidUpdateResource'
    >();
    expectTypeOf<EventPayload<'mcp.onDidChangeServer'>>().toEqualTypeOf<McpServerChange>();
    expectTypeOf<EventPayload<'mcp.onDidChangeTools'>>().toEqualTypeOf<McpToolsChange>();
  });
  it('names the audit methods', () => {
    expectTypeOf<In<'audit', MethodName>>().toEqualTypeOf<
      | 'audit.query'
      | 'audit.export'
      | 'audit.verify'
      | 'audit.exportPrepare'
      | 'audit.exportRead'
      | 'audit.shippingStatus'
      | 'audit.shippingSinks'
      | 'audit.saveShippingSink'
      | 'audit.removeShippingSink'
      | 'audit.checkpoints'
      | 'audit.setCheckpoints'
      | 'audit.verifyAgainst'
      | 'audit.stats'
      | 'audit.suggestions'
      | 'audit.acceptSuggestion'
    >();
    expectTypeOf<In<'audit', EventName>>().toEqualTypeOf<'audit.onDidProgress'>();
  });

  it('infers inputs and outputs from the schemas', () => {
    expectTypeOf<MethodInput<'chat.rename'>>().toEqualTypeOf<{ id: string; title: string }>();
    expectTypeOf<MethodInput<'chat.create'>>().toEqualTypeOf<
      | {
          title?: string | undefined;
          providerId?: string | undefined;
          model?: string | undefined;
          systemPrompt?: string | undefined;
        }
      | undefined
    >();
    expectTypeOf<MethodOutput<'chat.rename'>>().toEqualTypeOf<Chat>();
    expectTypeOf<MethodOutput<'chat.list'>>().toEqualTypeOf<{ chats: Chat[] }>();
    expectTypeOf<MethodOutput<'chat.delete'>>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<MethodOutput<'app.info'>>().toEqualTypeOf<AppInfo>();
  });
});

describe('WorkbenchApi (the preload and the browser bridge)', () => {
  it('has exactly the contract namespaces', () => {
    type Namespace<N extends string> = N extends `${infer S}.${string}` ? S : never;
    expectTypeOf<keyof WorkbenchApi>().toEqualTypeOf<Namespace<MethodName | EventName>>();
    type Members<S extends string> =
      Extract<MethodName | EventName, `${S}.${string}`> extends `${S}.${infer F}` ? F : never;
    expectTypeOf<keyof WorkbenchApi['chat']>().toEqualTypeOf<Members<'chat'>>();
    expectTypeOf<keyof WorkbenchApi['mcp']>().toEqualTypeOf<Members<'mcp'>>();
    expectTypeOf<keyof WorkbenchApi['audit']>().toEqualTypeOf<Members<'audit'>>();
    expectTypeOf<keyof WorkbenchApi['app']>().toEqualTypeOf<'info' | 'onDidRequestChat'>();
  });

  it('takes each method input and resolves with its output', () => {
    expectTypeOf<WorkbenchApi['chat']['rename']>().parameter(0).toEqualTypeOf<MethodInput<'chat.rename'>>();
    expectTypeOf<WorkbenchApi['chat']['rename']>().returns.toEqualTypeOf<Promise<MethodOutput<'chat.rename'>>>();
    expectTypeOf<WorkbenchApi['chat']['get']>().parameters.toEqualTypeOf<[MethodInput<'chat.get'>]>();
    expectTypeOf<WorkbenchApi['chat']['delete']>().returns.toEqualTypeOf<Promise<MethodOutput<'chat.delete'>>>();
    expectTypeOf<WorkbenchApi['chat']['list']>().returns.toEqualTypeOf<Promise<{ chats: Chat[] }>>();
    expectTypeOf<WorkbenchApi['app']['info']>().returns.toEqualTypeOf<Promise<AppInfo>>();
  });

  it('lets methods without required input be called with nothing', () => {
    expectTypeOf(workbench.chat.create()).toEqualTypeOf<Promise<Chat>>();
    expectTypeOf(workbench.chat.list()).toEqualTypeOf<Promise<{ chats: Chat[] }>>();
    expectTypeOf(workbench.app.info()).toEqualTypeOf<Promise<AppInfo>>();
    expectTypeOf<WorkbenchApi['chat']['create']>().parameters.toEqualTypeOf<[input?: MethodInput<'chat.create'>]>();
  });

  it('subscribes to events with typed payloads and returns an unsubscribe', () => {
    expectTypeOf<WorkbenchApi['chat']['onDidChange']>().parameter(0).toEqualTypeOf<(payload: ChatChange) => void>();
    expectTypeOf<WorkbenchApi['chat']['onDidChange']>().returns.toEqualTypeOf<Unsubscribe>();
  });

  it('rejects calls that do not match the contract', () => {
    // @ts-expect-error chat.rename needs the id
    void workbench.chat.rename({ title: 'x' });
    // @ts-expect-error chat.rename needs the title
    void workbench.chat.rename({ id: chat.id });
    // @ts-expect-error chat.rename takes an input object
    void workbench.chat.rename();
    // @ts-expect-error the title is a string
    void workbench.chat.create({ title: 42 });
    // @ts-expect-error no method outside the contract
    void workbench.chat.explode();
    // @ts-expect-error no namespace outside the contract
    void workbench.fs;
    // @ts-expect-error chat.get resolves with a Chat, not a list
    expectTypeOf(workbench.chat.get({ id: chat.id })).toEqualTypeOf<Promise<{ chats: Chat[] }>>();
    void workbench.chat.rename({ id: chat.id, title: 'fine' });
  });
});

describe('MethodHandlers (the main process)', () => {
  it('has exactly one handler per contract method', () => {
    expectTypeOf<keyof MethodHandlers>().toEqualTypeOf<MethodName>();
  });

  it('receives the parsed input and returns the output', () => {
    expectTypeOf<MethodHandlers['chat.rename']>().parameter(0).toEqualTypeOf<MethodParsedInput<'chat.rename'>>();
    expectTypeOf<MethodHandlers['chat.rename']>().returns.toEqualTypeOf<Chat | Promise<Chat>>();
    expectTypeOf<MethodHandlers['chat.create']>().parameter(0).toEqualTypeOf<MethodParsedInput<'chat.create'>>();
  });

  it('agrees with WorkbenchApi: what the page sends is what the handler gets, and back', () => {
    type ApiOf<M extends MethodName> = M extends `${infer S extends keyof WorkbenchApi}.${infer F}`
      ? F extends keyof WorkbenchApi[S]
        ? WorkbenchApi[S][F]
        : never
      : never;
    expectTypeOf<Awaited<ReturnType<MethodHandlers['chat.get']>>>().toEqualTypeOf<
      Awaited<ReturnType<ApiOf<'chat.get'>>>
    >();
    expectTypeOf<Awaited<ReturnType<MethodHandlers['chat.delete']>>>().toEqualTypeOf<
      Awaited<ReturnType<ApiOf<'chat.delete'>>>
    >();
    expectTypeOf<Awaited<ReturnType<MethodHandlers['app.info']>>>().toEqualTypeOf<
      Awaited<ReturnType<ApiOf<'app.info'>>>
    >();
    expectTypeOf<Parameters<MethodHandlers['chat.rename']>[0]>().toEqualTypeOf<Parameters<ApiOf<'chat.rename'>>[0]>();
  });

  it('refuses a handler map that misses a method or answers with the wrong shape', () => {
    // The whole map is checked against the contract where it is built (handlers.ts); here, how a wrong one fails.
    const complete: MethodHandlers = createHandlers(services);
    expectTypeOf(complete).toEqualTypeOf<MethodHandlers>();

    // @ts-expect-error chat.delete is missing
    const missing: MethodHandlers = {
      'app.info': complete['app.info'],
      'chat.create': () => chat,
      'chat.list': () => ({ chats: [] }),
      'chat.get': () => chat,
      'chat.rename': () => chat,
    };
    const wrongShape: MethodHandlers = {
      ...complete,
      // @ts-expect-error chat.list answers { chats }, not a bare array
      'chat.list': () => [chat],
    };
    const extra: MethodHandlers = {
      ...complete,
      // @ts-expect-error no handler for a method outside the contract
      'chat.explode': () => null,
    };
    const wrongInput: MethodHandlers = {
      ...complete,
      // @ts-expect-error chat.get's input has no title
      'chat.get': ({ title }) => ({ ...chat, title }),
    };
    void [missing, wrongShape, extra, wrongInput];
  });
});
