// Proves that the preload/bridge API, the main process's handler map and the contract's method map agree.
import { describe, expectTypeOf, it } from 'vitest';
import type { Unsubscribe, WorkbenchApi } from '../../shared/api';
import type { AppInfo } from '../../shared/app';
import type { Chat, ChatChange } from '../../shared/chat';
import type { EventName, EventPayload, MethodInput, MethodName, MethodOutput, MethodParsedInput } from '../../shared/contract';
import type { ProviderInfo } from '../../shared/llm';
import type { McpServerChange, McpServerView, McpToolsChange } from '../../shared/mcp';
import type { MethodHandlers } from './dispatcher';

declare const workbench: WorkbenchApi;
declare const chat: Chat;
declare const provider: ProviderInfo;
declare const policyView: MethodOutput<'policy.get'>;
declare const explanation: MethodOutput<'policy.explain'>;
declare const grant: MethodOutput<'grants.revoke'>['revoked'];
declare const server: McpServerView;

describe('the contract', () => {
  it('names every method and event', () => {
    expectTypeOf<MethodName>().toEqualTypeOf<
      | 'app.info'
      | 'chat.create'
      | 'chat.list'
      | 'chat.get'
      | 'chat.rename'
      | 'chat.delete'
      | 'providers.list'
      | 'providers.add'
      | 'providers.update'
      | 'providers.remove'
      | 'providers.test'
      | 'providers.models'
      | 'policy.get'
      | 'policy.update'
      | 'policy.explain'
      | 'grants.list'
      | 'grants.revoke'
      | 'approvals.pending'
      | 'approvals.getChatMode'
      | 'approvals.setChatMode'
      | 'mcp.list'
      | 'mcp.add'
      | 'mcp.edit'
      | 'mcp.remove'
      | 'mcp.setEnabled'
      | 'mcp.restart'
      | 'mcp.logs'
      | 'mcp.tools'
      | 'mcp.importPreview'
      | 'mcp.import'
      | 'audit.query'
      | 'audit.export'
      | 'audit.verify'
    >();
    expectTypeOf<EventName>().toEqualTypeOf<
      | 'chat.onDidChange'
      | 'providers.onDidChange'
      | 'policy.onDidChange'
      | 'grants.onDidChange'
      | 'approvals.onDidChange'
      | 'mcp.onDidChangeServer'
      | 'mcp.onDidChangeTools'
      | 'audit.onDidProgress'
    >();
    expectTypeOf<EventPayload<'chat.onDidChange'>>().toEqualTypeOf<ChatChange>();
    expectTypeOf<EventPayload<'mcp.onDidChangeServer'>>().toEqualTypeOf<McpServerChange>();
    expectTypeOf<EventPayload<'mcp.onDidChangeTools'>>().toEqualTypeOf<McpToolsChange>();
  });

  it('infers inputs and outputs from the schemas', () => {
    expectTypeOf<MethodInput<'chat.rename'>>().toEqualTypeOf<{ id: string; title: string }>();
    expectTypeOf<MethodInput<'chat.create'>>().toEqualTypeOf<{ title?: string | undefined } | undefined>();
    expectTypeOf<MethodOutput<'chat.rename'>>().toEqualTypeOf<Chat>();
    expectTypeOf<MethodOutput<'chat.list'>>().toEqualTypeOf<{ chats: Chat[] }>();
    expectTypeOf<MethodOutput<'chat.delete'>>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<MethodOutput<'app.info'>>().toEqualTypeOf<AppInfo>();
  });
});

describe('WorkbenchApi (the preload and the browser bridge)', () => {
  it('has exactly the contract namespaces', () => {
    expectTypeOf<keyof WorkbenchApi>().toEqualTypeOf<'app' | 'chat' | 'providers' | 'policy' | 'grants' | 'approvals' | 'mcp' | 'audit'>();
    expectTypeOf<keyof WorkbenchApi['providers']>().toEqualTypeOf<'list' | 'add' | 'update' | 'remove' | 'test' | 'models' | 'onDidChange'>();
    expectTypeOf<keyof WorkbenchApi['mcp']>().toEqualTypeOf<
      'list' | 'add' | 'edit' | 'remove' | 'setEnabled' | 'restart' | 'logs' | 'tools' | 'importPreview' | 'import' | 'onDidChangeServer' | 'onDidChangeTools'
    >();
    expectTypeOf<keyof WorkbenchApi['audit']>().toEqualTypeOf<'query' | 'export' | 'verify' | 'onDidProgress'>();
    expectTypeOf<keyof WorkbenchApi['chat']>().toEqualTypeOf<'create' | 'list' | 'get' | 'rename' | 'delete' | 'onDidChange'>();
    expectTypeOf<keyof WorkbenchApi['app']>().toEqualTypeOf<'info'>();
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
    expectTypeOf<MethodHandlers['chat.create']>().parameter(0).toEqualTypeOf<{ title?: string | undefined } | undefined>();
  });

  it('agrees with WorkbenchApi: what the page sends is what the handler gets, and back', () => {
    type ApiOf<M extends MethodName> = M extends `${infer S extends keyof WorkbenchApi}.${infer F}`
      ? F extends keyof WorkbenchApi[S]
        ? WorkbenchApi[S][F]
        : never
      : never;
    expectTypeOf<Awaited<ReturnType<MethodHandlers['chat.get']>>>().toEqualTypeOf<Awaited<ReturnType<ApiOf<'chat.get'>>>>();
    expectTypeOf<Awaited<ReturnType<MethodHandlers['chat.delete']>>>().toEqualTypeOf<Awaited<ReturnType<ApiOf<'chat.delete'>>>>();
    expectTypeOf<Awaited<ReturnType<MethodHandlers['app.info']>>>().toEqualTypeOf<Awaited<ReturnType<ApiOf<'app.info'>>>>();
    expectTypeOf<Parameters<MethodHandlers['chat.rename']>[0]>().toEqualTypeOf<Parameters<ApiOf<'chat.rename'>>[0]>();
  });

  it('refuses a handler map that misses a method or answers with the wrong shape', () => {
    const complete: MethodHandlers = {
      'app.info': () => ({ name: '', version: '', host: 'cli', platform: '', dataDir: '', versions: { node: '', sqlite: '' } }),
      'chat.create': () => chat,
      'chat.list': () => ({ chats: [] }),
      'chat.get': async () => chat,
      'chat.rename': ({ title }) => ({ ...chat, title }),
      'chat.delete': ({ id }) => ({ id }),
      'providers.list': () => ({ providers: [provider] }),
      'providers.add': () => provider,
      'providers.update': ({ label }) => ({ ...provider, label: label ?? provider.label }),
      'providers.remove': ({ id }) => ({ id }),
      'providers.test': async () => ({ ok: false, error: { code: 'llm_bad_key', message: 'No key' } }),
      'providers.models': async () => ({ models: [{ id: 'gpt-4o' }] }),
      'policy.get': () => policyView,
      'policy.update': () => policyView,
      'policy.explain': () => explanation,
      'grants.list': () => ({ grants: [] }),
      'grants.revoke': () => ({ revoked: grant }),
      'approvals.pending': () => ({ approvals: [] }),
      'approvals.getChatMode': ({ chatId }) => ({ chatId, mode: 'always-ask' }),
      'approvals.setChatMode': ({ chatId, mode }) => ({ chatId, mode }),
      'mcp.list': () => ({ servers: [server] }),
      'mcp.add': () => server,
      'mcp.edit': () => server,
      'mcp.remove': ({ name }) => ({ name }),
      'mcp.setEnabled': () => server,
      'mcp.restart': async () => server,
      'mcp.logs': ({ name }) => ({ name, lines: [], dropped: 0 }),
      'mcp.tools': () => ({ tools: [] }),
      'mcp.importPreview': () => ({ file: '', format: 'cursor', add: [], skip: [] }),
      'mcp.import': () => ({ added: [], skip: [] }),
      'audit.query': () => ({ entries: [], nextCursor: null }),
      'audit.export': ({ path, format }) => ({ path, format, rowCount: 0, head: { sequence: 0, hash: '0'.repeat(64) }, bytes: 0 }),
      'audit.verify': () => ({ ok: true, rowCount: 0, head: { sequence: 0, hash: '0'.repeat(64) } }),
    };
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
