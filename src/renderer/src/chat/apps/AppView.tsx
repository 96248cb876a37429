import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import {
  AppBridge,
  PostMessageTransport,
  type McpUiHostCapabilities,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { errorText, isWorkbenchErrorData } from '../../../../shared/error-data';
import type { McpAppView } from '../../../../shared/mcp-apps';
import type { ToolCallRecord } from '../../../../shared/messages';
import type { WorkbenchApi } from '../../../../shared/api';
import { appFrameUrl, appFrameUrlNow, declaredKey, NOTHING_DECLARED } from './app-frame';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { proposeMessage } from '../proposed-message';
import { AppCallCards } from './AppCallCards';
import { dropFrame, fillPoolWhenIdle, parkFrame, proxyIsReady, takeFrame } from './proxy-frames';

/** A view is as tall as it says it is, within these (docs/user/mcp-apps.md#how-a-view-is-shown). */
export const VIEW_MIN_HEIGHT = 48;
export const VIEW_MAX_HEIGHT = 560;
export const VIEW_LARGER_MAX_HEIGHT = 1600;

const HOST_INFO = { name: 'AI Workbench', version: '1' };

/** What this host offers a view; every request it makes is checked in the main process (docs/user/mcp-apps.md). */
const HOST_CAPABILITIES: McpUiHostCapabilities = {
  logging: {},
  serverTools: {},
  serverResources: {},
  openLinks: {},
  message: { text: {} },
  updateModelContext: { text: {} },
};

/** The text of a view's content blocks (what `ui/message` and `ui/update-model-context` carry). */
const textOf = (content: readonly { type: string; text?: unknown }[] | undefined): string =>
  (content ?? [])
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n')
    .slice(0, 20_000);

/** Whether the host refused a request because the view's server is not the one it was shown for. */
const isStale = (error: unknown): boolean =>
  isWorkbenchErrorData(error) &&
  typeof error.details === 'object' &&
  error.details !== null &&
  (error.details as { stale?: unknown }).stale === true;

/**
 * The declared domains each view had when last read in this page, per server, tool and server identity: a view shown
 * again has its proxy frame loaded while it is read (docs/dev/benchmarks.md, "What keeps them fast"). Only the
 * frame's address is guessed from it; the view's HTML goes only to a proxy whose policy is the one just read.
 */
const lastDeclared = new Map<string, string>();

/**
 * The binding of each pool frame's slot to the view it was taken for (proxy-frames.ts): true once the main process
 * accepted it; the view's HTML goes to a pool frame only then.
 */
const slotBindings = new WeakMap<HTMLIFrameElement, Promise<boolean>>();

// Once views are shown in this page, blank proxy frames are loaded ahead for the next ones (proxy-frames.ts).
fillPoolWhenIdle();

const themeNow = (): 'light' | 'dark' => (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');

/** The result as the view receives it: the tool's content and structured content (parts we could not read left out). */
export function viewResultOf(call: ToolCallRecord): CallToolResult {
  const result = call.result;
  const content = (result?.content ?? []).filter((part) => part.type !== 'unknown') as CallToolResult['content'];
  return {
    content,
    ...(result?.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result?.isError ? { isError: true } : {}),
  };
}

/**
 * A tool's MCP Apps view in its tool block: the official host bridge (`@modelcontextprotocol/ext-apps` app-bridge)
 * talks to the view through the double-frame proxy on the app frame origin, which runs the view's HTML in a frame
 * sandboxed to scripts alone, under the Content-Security-Policy of its declared domains. Loaded on demand (its own
 * chunk), so the first screen does not carry it.
 */
export function AppView({
  call,
  api,
  chatId,
}: {
  call: ToolCallRecord;
  api: WorkbenchApi;
  chatId: string;
}): React.JSX.Element {
  // Where the proxy frame goes; the frame itself is made and kept by proxy-frames.ts, not by React.
  const framePlace = useRef<HTMLDivElement>(null);
  const frameElement = useRef<HTMLIFrameElement | null>(null);
  // The frame, whether its proxy is ready, and the declared domains its address (so its page's policy) carries.
  const [frame, setFrame] = useState<{ element: HTMLIFrameElement; ready: boolean; declared: string } | null>(null);
  // Whether the current frame's proxy said it is ready (a frame that is not is never parked).
  const frameReady = useRef(false);
  const [source, setSource] = useState<{ url: string; view: McpAppView } | null>(null);
  // The frame origin's proxy page, and the declared domains its address carries: loaded while the view is read, with
  // the domains it declared when last read (`lastDeclared`) or none, and again if the view declares other ones.
  const viewKey = `${call.serverName}\u0000${call.toolName}\u0000${call.viewIdentity ?? ''}`;
  const [frameUrl, setFrameUrl] = useState<string | null>(() => appFrameUrlNow() ?? null);
  // A pool frame whose slot the main process would not bind is replaced by one of the view's own address.
  const [poolRefused, setPoolRefused] = useState(false);
  const declared = source ? declaredKey(source.view.csp) : (lastDeclared.get(viewKey) ?? NOTHING_DECLARED);
  // The view read, and how the current frame's bridge sends it once its proxy is ready.
  const shownView = useRef<McpAppView | null>(null);
  const sendView = useRef<(() => void) | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [height, setHeight] = useState(VIEW_MIN_HEIGHT * 3);
  const [larger, setLarger] = useState(false);
  const [link, setLink] = useState<{ url: string; host: string; answer(open: boolean): void } | null>(null);
  const [context, setContext] = useState<string | null>(null);
  // A view that differs from the one pinned for the server waits for the person (docs/user/mcp-apps.md#pinned-views).
  const [changed, setChanged] = useState<{ url: string; view: McpAppView } | null>(null);
  const [accepting, setAccepting] = useState(false);
  // The server's name means another server than the one the call was made to (docs/user/mcp-apps.md#a-view-belongs-to-its-server).
  const [stale, setStale] = useState(false);
  const frameShown = frameUrl !== null && !stale && !problem && !(changed && !source);
  /** The refusal a view receives, in the host's words; a stale view is closed. */
  const refusal = (error: unknown): Error => {
    if (isStale(error)) setStale(true);
    return new Error(errorText(error));
  };

  // A view whose server is not ready yet is read again once it is (docs/user/mcp-apps.md#reading-a-view).
  const [reads, setReads] = useState(0);
  useEffect(() => {
    let live = true;
    let stopWaiting: (() => void) | undefined;
    const waitForServer = (error: unknown): void => {
      setProblem(`${errorText(error)} The view is shown once it is ready.`);
      stopWaiting = api.mcp.onDidChangeServer((change) => {
        if (change.kind !== 'updated' || change.server.name !== call.serverName) return;
        if (change.server.status.state !== 'ready') return;
        stopWaiting?.();
        stopWaiting = undefined;
        if (live) setReads((count) => count + 1);
      });
    };
    void appFrameUrl().then((url) => {
      if (live) setFrameUrl(url);
    });
    Promise.all([appFrameUrl(), api.mcp.appView({ name: call.serverName, tool: call.toolName })]).then(
      ([url, view]) => {
        if (!live) return;
        setProblem(null);
        if (view.identity === call.viewIdentity && view.pin?.status !== 'changed')
          lastDeclared.set(viewKey, declaredKey(view.csp));
        // Both hosts start the frame origin; null only when it could not (docs/user/mcp-apps.md#how-a-view-is-shown).
        if (url === null) setProblem('This view cannot be shown: the app could not start the origin views run on.');
        else if (view.identity !== undefined && view.identity !== call.viewIdentity) setStale(true);
        else if (view.pin?.status === 'changed') setChanged({ url, view });
        else {
          // Sent as soon as read and checked, not a render later: the page is busy with the chat meanwhile.
          shownView.current = view;
          sendView.current?.();
          setSource({ url, view });
        }
      },
      (error: unknown) => {
        if (!live) return;
        if (isWorkbenchErrorData(error) && error.code === 'unavailable') waitForServer(error);
        else setProblem(errorText(error));
      },
    );
    return () => {
      live = false;
      stopWaiting?.();
    };
  }, [api, call.serverName, call.toolName, call.viewIdentity, viewKey, reads]);

  // The view's HTML goes to the proxy once both are ready, and only to a proxy whose address carries the domains the
  // view declares (its page is served under the policy built from them): a frame loaded with other ones is replaced.
  useEffect(() => {
    shownView.current = source?.view ?? null;
    sendView.current?.();
  }, [source]);

  // The proxy frame for this call's address: the one kept from its last showing in this page, a pool frame (under the
  // policy of no declared domains), or a new one. It is taken in a layout effect and parked in its cleanup, which runs
  // before React removes the block from the page. The address names the view (for the frame origin's reports of what
  // its policy blocked; a pool frame's carries a slot the page binds to the view instead), the domains it declared,
  // and the page it is for (`host`: the browser keeps the proxy page for it; docs/dev/benchmarks.md).
  const address =
    frameUrl === null
      ? null
      : `${frameUrl}?${new URLSearchParams({ csp: declared, chat: chatId, view: call.toolCallId, host: location.origin }).toString()}`;
  useLayoutEffect(() => {
    const place = framePlace.current;
    if (!frameShown || address === null || !place) return;
    const taken = takeFrame(address, place, { declared, pooled: !poolRefused });
    taken.frame.title = `View of ${call.serverName} · ${call.toolName}`;
    // A pool frame's slot is bound to this call's view before anything of the view goes to it.
    if (taken.slot !== undefined)
      slotBindings.set(
        taken.frame,
        api.apps.bindFrameSlot({ slot: taken.slot, chatId, viewCallId: call.toolCallId }).then(
          () => true,
          () => false,
        ),
      );
    frameReady.current = taken.ready;
    frameElement.current = taken.frame;
    setFrame({ element: taken.frame, ready: taken.ready, declared: taken.declared });
    return () => {
      frameElement.current = null;
      setFrame(null);
      parkFrame(address, taken.frame, frameReady.current || proxyIsReady(taken.frame));
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [frameShown, address, poolRefused]);

  // Hidden while the view is read; as tall as the view says, within the limits.
  useEffect(() => {
    const element = frameElement.current;
    if (!element) return;
    element.hidden = !source;
    element.style.height = `${Math.min(height, larger ? VIEW_LARGER_MAX_HEIGHT : VIEW_MAX_HEIGHT)}px`;
  }, [frame, source, height, larger]);

  useEffect(() => {
    const target = frame?.element.contentWindow;
    if (!target) return;
    const hostContext: McpUiHostContext = {
      theme: themeNow(),
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      platform: 'web',
      locale: navigator.language,
      toolInfo: { tool: { name: call.toolName, inputSchema: { type: 'object' } } },
    };
    const bridge = new AppBridge(null, HOST_INFO, HOST_CAPABILITIES, { hostContext });
    // A frame kept from an earlier showing is ready already: its proxy said so then (a pool frame's may have since).
    let proxyReady = frame.ready || proxyIsReady(frame.element);
    let connected = false;
    let sent = false;
    // A pool frame serves the view once its slot is bound to it; any other frame's address names the view.
    const binding = slotBindings.get(frame.element);
    let bound = binding === undefined;
    const send = (): void => {
      const view = shownView.current;
      if (!connected || !proxyReady || !bound || sent || !view || declaredKey(view.csp) !== frame.declared) return;
      sent = true;
      void bridge.sendSandboxResourceReady({ html: view.html, csp: view.csp });
    };
    sendView.current = send;
    let live = true;
    void binding?.then((accepted) => {
      if (!live) return;
      if (!accepted) {
        dropFrame(frame.element);
        setPoolRefused(true);
        return;
      }
      bound = true;
      send();
    });
    bridge.onsandboxready = () => {
      proxyReady = true;
      frameReady.current = true;
      send();
    };
    bridge.oninitialized = () => {
      void bridge.sendToolInput({ arguments: call.args });
      if (call.result) void bridge.sendToolResult(viewResultOf(call));
    };
    const view = { chatId, viewCallId: call.toolCallId };
    // Every request goes to the main process, which decides it like the model's calls; a refusal reaches the view.
    bridge.oncalltool = async (params) => {
      try {
        const result = await api.apps.callTool({ ...view, tool: params.name, arguments: params.arguments ?? {} });
        return viewResultOf({ ...call, result });
      } catch (error) {
        throw refusal(error);
      }
    };
    bridge.onreadresource = async (params) => {
      try {
        const read = await api.apps.readResource({ ...view, uri: params.uri });
        return { contents: read.contents } as Awaited<ReturnType<NonNullable<AppBridge['onreadresource']>>>;
      } catch (error) {
        throw refusal(error);
      }
    };
    bridge.onopenlink = async ({ url }) => {
      let checked: { url: string; host: string };
      try {
        checked = await api.apps.openLink({ ...view, url });
      } catch (error) {
        throw refusal(error);
      }
      const open = await new Promise<boolean>((answer) => setLink({ ...checked, answer }));
      setLink(null);
      if (!open) {
        // Refused here, in the page: recorded like the host's own refusals.
        void api.apps
          .recordRefusal({ ...view, what: 'ui/open-link', detail: `you did not open ${checked.url}` })
          .catch(() => undefined);
        return { isError: true };
      }
      window.open(checked.url, '_blank', 'noopener,noreferrer');
      return {};
    };
    // A message lands in the message box, never sent; the person sends it or not.
    bridge.onmessage = async ({ content }) => {
      const text = textOf(content);
      if (!text) return { isError: true };
      proposeMessage(chatId, text);
      return {};
    };
    // Context for the model is shown on the tool block first, and can be removed.
    bridge.onupdatemodelcontext = async ({ content }) => {
      const text = textOf(content);
      setContext(text || null);
      return {};
    };
    bridge.onsizechange = ({ height: wanted }) => {
      if (typeof wanted === 'number' && Number.isFinite(wanted))
        setHeight(Math.max(VIEW_MIN_HEIGHT, Math.ceil(wanted)));
    };
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const onScheme = (): void => void bridge.sendHostContextChange({ theme: themeNow() });
    scheme.addEventListener('change', onScheme);
    void bridge.connect(new PostMessageTransport(target, target)).then(() => {
      connected = true;
      send();
    });
    return () => {
      live = false;
      if (sendView.current === send) sendView.current = null;
      scheme.removeEventListener('change', onScheme);
      void bridge.close();
    };
    // The bridge is set up once per proxy frame (keyed by its address); a newer result of the same call is a new block.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [frame]);

  if (stale)
    return (
      <p className="app-view-problem muted" role="note" data-testid="app-view-stale">
        This view was shown for the server that “{call.serverName}” ran then. That name now means another server, or
        none, so the view is closed and may not ask anything. Ask again for a view of the server it runs now.
      </p>
    );
  if (problem)
    return (
      <p className="app-view-problem muted" role="note">
        {problem}
      </p>
    );
  if (changed && !source) {
    const accept = (): void => {
      setAccepting(true);
      api.mcp.acceptAppView({ name: call.serverName, tool: call.toolName, hash: changed.view.hash }).then(
        (view) => {
          setChanged(null);
          setSource({ url: changed.url, view });
        },
        (error: unknown) => {
          setAccepting(false);
          setProblem(errorText(error));
        },
      );
    };
    return (
      <div className="app-view-changed" data-testid="app-view-changed" role="group" aria-label="Changed view">
        <p>
          <strong>The view of {call.serverName} changed</strong> since it was last shown. It is shown only once you
          accept the change.
        </p>
        <ul className="small">
          {(changed.view.pin?.changes ?? []).map((change) => (
            <li key={change}>{change}</li>
          ))}
        </ul>
        <div className="app-call-actions">
          <button type="button" className="button button-primary" disabled={accepting} onClick={accept}>
            Show the changed view
          </button>
        </div>
      </div>
    );
  }
  if (!frameShown) return <p className="app-view-loading muted">Loading the view…</p>;
  return (
    <div className="app-view" data-testid={source ? 'app-view' : undefined} data-view-hash={source?.view.hash}>
      <div ref={framePlace} className="app-view-frame-slot" />
      {!source && <p className="app-view-loading muted">Loading the view…</p>}
      {source && <AppCallCards api={api} chatId={chatId} viewCallId={call.toolCallId} />}
      {context !== null && (
        <div className="app-view-context" data-testid="app-view-context">
          <p className="small">
            <strong>The app of {call.serverName} offers context for the model.</strong> Nothing is sent until you put it
            in a message.
          </p>
          <pre className="tool-pre">{context}</pre>
          <div className="app-call-actions">
            <button type="button" className="button" onClick={() => proposeMessage(chatId, context)}>
              Put in the message box
            </button>
            <button type="button" className="button" onClick={() => setContext(null)}>
              Remove
            </button>
          </div>
        </div>
      )}
      {link && (
        <ConfirmDialog
          title={`Open a link on ${link.host}?`}
          confirmLabel="Open"
          onConfirm={async () => link.answer(true)}
          onCancel={() => link.answer(false)}
        >
          <p>
            The app of {call.serverName} asks to open this link in your browser. It goes to <strong>{link.host}</strong>
            .
          </p>
          <p className="muted small app-view-link">{link.url}</p>
        </ConfirmDialog>
      )}
      {height > VIEW_MAX_HEIGHT && (
        <button type="button" className="button-link small" onClick={() => setLarger(!larger)}>
          {larger ? 'Show smaller' : 'Show larger'}
        </button>
      )}
    </div>
  );
}
