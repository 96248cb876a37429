import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  APP_FRAME_SLOT_PATTERN,
  appDeclarationsOf,
  contentSecurityPolicyOf,
  PROXY_DROP_VIEW,
} from '../../shared/mcp-apps';
import { parseJsonOrUndefined } from '../../shared/json';

// Through getBuiltinModule, as in browser-server.ts: an ES import of node:http loads Node's fetch at start.
const { createServer } = process.getBuiltinModule('node:http');

/** The one page the frame origin serves: the double-frame proxy a view runs inside (docs/user/mcp-apps.md). */
export const APP_FRAME_PATH = '/app-frame.html';

export interface AppFrameServer {
  /** `http://127.0.0.1:PORT`: another origin than the page's, so a view never shares its storage or cookies. */
  readonly origin: string;
  /** Its port; it answers under both loopback names (`127.0.0.1`, `localhost`). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The double-frame proxy (the MCP Apps specification's sandbox proxy for web hosts). It runs in the page's frame on
 * this origin, tells the page it is ready, then puts the view's HTML in an inner frame sandboxed to scripts alone
 * (an opaque origin: no storage, no cookies, no top navigation, no pop-ups, no forms) and relays messages between
 * the page and the view. It takes messages only from its parent on one of `hosts`, and the view's only from the
 * inner frame. The inner frame inherits this page's Content-Security-Policy, which its server sets from the view's
 * declared domains: the view cannot loosen it. Told `PROXY_DROP_VIEW` by its page, it removes the view's frame, so that
 * the page can keep it, blank, and give it the next showing of the same view (renderer chat/apps/proxy-frames.ts).
 */
function proxyPage(hosts: readonly string[]): string {
  const script = `(() => {
  const hosts = ${JSON.stringify(hosts)};
  let host = null;
  let inner = null;
  window.addEventListener('message', (event) => {
    if (event.source === window.parent) {
      if (!hosts.includes(event.origin) || (host !== null && host !== event.origin)) return;
      host = event.origin;
      const data = event.data;
      if (data && data.method === ${JSON.stringify(PROXY_DROP_VIEW)}) {
        if (inner) inner.remove();
        inner = null;
        return;
      }
      if (data && data.method === 'ui/notifications/sandbox-resource-ready') {
        if (inner) return;
        const params = data.params || {};
        inner = document.createElement('iframe');
        inner.setAttribute('sandbox', 'allow-scripts');
        inner.setAttribute('allow', '');
        inner.setAttribute('title', 'View');
        inner.srcdoc = typeof params.html === 'string' ? params.html : '';
        document.body.appendChild(inner);
        return;
      }
      if (inner && inner.contentWindow) inner.contentWindow.postMessage(data, '*');
    } else if (inner && event.source === inner.contentWindow && host !== null) {
      window.parent.postMessage(event.data, host);
    }
  });
  const ready = { jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} };
  for (const origin of hosts) window.parent.postMessage(ready, origin);
})();`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>View</title><style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}iframe{border:0;width:100%;height:100%;display:block;color-scheme:normal}</style></head><body><script>${script}</script></body></html>`;
}

/**
 * The view's declared domains from the frame's address (`?csp=` JSON, as the page read them from `mcp.appView`),
 * filtered again to plain origins: an address cannot add a keyword or a directive to the policy.
 */
export function frameCspOf(search: string): string {
  const raw = new URLSearchParams(search).get('csp');
  const declared = raw === null ? undefined : parseJsonOrUndefined(raw);
  return contentSecurityPolicyOf(appDeclarationsOf({ ui: { csp: declared } }).csp);
}

/**
 * How long the browser keeps a proxy page it was given for a page origin (docs/dev/benchmarks.md, "What keeps them
 * fast"); the page, its policy and the origins that may frame it follow from its address alone.
 */
export const APP_FRAME_MAX_AGE_SECONDS = 600;

/** Where the frame's browser reports what its Content-Security-Policy blocked (`report-uri`). */
export const APP_FRAME_REPORT_PATH = '/csp-report';
/** The most blocked requests of one view that are recorded; a view that keeps trying is not let fill the log. */
export const APP_FRAME_REPORTS_PER_VIEW = 20;
const REPORT_MAX_BYTES = 16_384;

/** What the frame's policy blocked in one view, as the browser reported it. */
export interface AppFrameReport {
  chatId: string;
  viewCallId: string;
  /** "connect-src blocked http://127.0.0.1:9/steal". */
  detail: string;
}

/** The view a proxy page is for (`?chat=&view=`, as the page put them in its address), or undefined. */
function viewOf(search: URLSearchParams): { chatId: string; viewCallId: string } | undefined {
  const chatId = search.get('chat');
  const viewCallId = search.get('view');
  if (!chatId || !viewCallId || chatId.length > 200 || viewCallId.length > 200) return undefined;
  return { chatId, viewCallId };
}

/** A pool frame's slot id (`?slot=`, made by the page before it knew the view), or undefined. */
function slotOf(search: URLSearchParams): string | undefined {
  const slot = search.get('slot');
  return slot !== null && APP_FRAME_SLOT_PATTERN.test(slot) ? slot : undefined;
}

/**
 * Where a proxy page's browser posts its reports: `?slot=` for a pool frame, `?chat=&view=` for a view's own; none
 * for an address with a slot that is not one.
 */
function reportQuery(search: URLSearchParams): string | undefined {
  const slot = slotOf(search);
  if (slot !== undefined) return new URLSearchParams({ slot }).toString();
  if (search.has('slot')) return undefined;
  const view = viewOf(search);
  return view && new URLSearchParams({ chat: view.chatId, view: view.viewCallId }).toString();
}

/** A `application/csp-report` body in words, or undefined when it is not one. */
export function reportDetail(body: string): string | undefined {
  const parsed = parseJsonOrUndefined(body) as { 'csp-report'?: Record<string, unknown> } | undefined;
  const report = parsed?.['csp-report'];
  if (!report || typeof report !== 'object') return undefined;
  const directive = report['effective-directive'] ?? report['violated-directive'];
  const blocked = report['blocked-uri'];
  const words = (value: unknown): string => (typeof value === 'string' ? value.slice(0, 500) : 'unknown');
  return `${words(directive)} blocked ${words(blocked)}`;
}

/**
 * The second loopback origin of browser mode: it serves only the proxy page, framed only by `hostOrigins` (the
 * page's), under the view's Content-Security-Policy, and takes the browser's reports of what that policy blocked
 * (`onReport`, docs/user/mcp-apps.md#in-the-audit-log): a pool frame's, for the view its slot was bound to
 * (`slotView`), or dropped. Anything else is 404; a Host header that does not name it, 421.
 */
export async function startAppFrameServer(options: {
  hostOrigins: () => readonly string[];
  onReport?: (report: AppFrameReport) => void;
  /** The view a pool frame's slot was bound to through the contract (main/mcp/app-frame-slots.ts), if any. */
  slotView?: (slot: string) => { chatId: string; viewCallId: string } | undefined;
  port?: number;
}): Promise<AppFrameServer> {
  let port = options.port ?? 0;
  const reported = new Map<string, number>();
  const server = createServer((request: http.IncomingMessage, response: http.ServerResponse) => {
    const text = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };
    if (request.headers.host !== `127.0.0.1:${port}` && request.headers.host !== `localhost:${port}`) {
      response.writeHead(421, text).end('Misdirected request\n');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'POST' && url.pathname === APP_FRAME_REPORT_PATH) {
      const pooled = url.searchParams.has('slot');
      const slot = slotOf(url.searchParams);
      const chunks: Buffer[] = [];
      let size = 0;
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= REPORT_MAX_BYTES) chunks.push(chunk);
      });
      request.on('end', () => {
        response.writeHead(204, text).end();
        const detail = size <= REPORT_MAX_BYTES ? reportDetail(Buffer.concat(chunks).toString('utf8')) : undefined;
        // A slot's report is for the view it was bound to, or none (never the chat and call its address may add).
        const view = !pooled ? viewOf(url.searchParams) : slot === undefined ? undefined : options.slotView?.(slot);
        if (!view || detail === undefined || !options.onReport) return;
        const key = `${view.chatId}\u0000${view.viewCallId}`;
        const count = reported.get(key) ?? 0;
        if (count >= APP_FRAME_REPORTS_PER_VIEW) return;
        reported.set(key, count + 1);
        options.onReport({ ...view, detail });
      });
      return;
    }
    if ((request.method !== 'GET' && request.method !== 'HEAD') || url.pathname !== APP_FRAME_PATH) {
      response.writeHead(404, text).end('Not found\n');
      return;
    }
    const hosts = options.hostOrigins();
    const body = proxyPage(hosts);
    const query = reportQuery(url.searchParams);
    // Kept by the browser only for the page origin its address names (`?host=`, one of `hosts`): the page, its
    // origins and the policy are then those of the address alone, so a view shown again skips this server.
    const host = url.searchParams.get('host');
    const report = query === undefined ? '' : `; report-uri ${APP_FRAME_REPORT_PATH}?${query}`;
    response.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `${frameCspOf(url.search)}; frame-ancestors ${hosts.join(' ')}${report}`,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control':
        host !== null && hosts.includes(host) ? `private, max-age=${APP_FRAME_MAX_AGE_SECONDS}` : 'no-store',
      'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), clipboard-write=(), usb=(), serial=(), hid=()',
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
