import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CALLBACK_PATH = '/callback';

/** Where the browser comes back after a sign-in: one request, on 127.0.0.1, on a port the OS picked. */
export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>/callback`: the redirect URI of this one sign-in. */
  readonly redirectUrl: string;
  /** The authorization code; rejects with the server's error, on timeout, or when closed first. */
  readonly code: Promise<string>;
  /** The `iss` parameter that came with the code (RFC 9207), once `code` has resolved; null when there was none. */
  issuer(): string | null;
  /**
   * Answers the browser's page, held open since the code came: only once the code was exchanged (or not) does the
   * page say whether the sign-in worked (docs/user/mcp-oauth.md).
   */
  report(outcome: { ok: true } | { ok: false; message: string }): void;
  close(): void;
}

/** How long the browser's page waits for `report` before it says that the app will tell. */
const REPORT_WAIT_MS = 60_000;

export interface ReceiverOptions {
  /** The `state` sent with the authorization request; a redirect with another one is refused (CSRF). */
  state: string;
  timeoutMs: number;
}

/**
 * Receives the OAuth redirect (RFC 8252 §7.3, loopback interface). Only `GET /callback` with the expected `state`
 * counts; anything else is answered 404/400 and changes nothing, so a page that guesses at the port cannot end or
 * steer the sign-in. The first good redirect ends it: the listener closes at once (one-shot), or at the timeout.
 */
export async function startLoopbackReceiver({ state, timeoutMs }: ReceiverOptions): Promise<LoopbackReceiver> {
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  code.catch(() => undefined);
  // Loaded at a sign-in only: importing node:http as a module evaluates all its exports, fetch's undici among them,
  // which cost every CLI command ~30 ms (cli-start in docs/dev/benchmarks.md).
  const http = await import('node:http');
  let held: ServerResponse | undefined;
  let heldTimer: ReturnType<typeof setTimeout> | undefined;
  let issuer: string | null = null;
  const answer = (status: number, message: string): void => {
    clearTimeout(heldTimer);
    held?.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(page(message));
    held = undefined;
  };
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    if (url.searchParams.get('state') !== state) {
      response
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(page('This sign-in link is not the one AI Workbench is waiting for.'));
      return;
    }
    const error = url.searchParams.get('error');
    const received = url.searchParams.get('code');
    if (error || !received) {
      const description = url.searchParams.get('error_description');
      response
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(page('Sign-in did not complete. You can close this tab.'));
      finish(
        new Error(`The server refused the sign-in: ${error ?? 'no code'}${description ? ` (${description})` : ''}.`),
      );
      return;
    }
    issuer = url.searchParams.get('iss');
    held = response;
    heldTimer = setTimeout(
      () => answer(202, 'AI Workbench received the sign-in and is finishing it; it will tell you whether it worked.'),
      REPORT_WAIT_MS,
    );
    heldTimer.unref();
    finish(received);
  });
  const timer = setTimeout(
    () => finish(new Error(`Nobody finished signing in within ${Math.round(timeoutMs / 1000)} s.`)),
    timeoutMs,
  );
  const finish = (outcome: string | Error): void => {
    clearTimeout(timer);
    server.close();
    server.closeIdleConnections();
    if (typeof outcome === 'string') settle?.resolve(outcome);
    else settle?.reject(outcome);
    settle = undefined;
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    code,
    issuer: () => issuer,
    report(outcome) {
      if (outcome.ok) answer(200, 'Signed in. You can close this tab and return to AI Workbench.');
      else answer(400, `Sign-in did not complete: ${escapeHtml(outcome.message)} You can close this tab.`);
    },
    close: () => {
      answer(400, 'The sign-in was cancelled. You can close this tab.');
      finish(new Error('The sign-in was cancelled.'));
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(message: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>AI Workbench</title><meta name="color-scheme" content="light dark"></head><body style="font: 16px system-ui, sans-serif; margin: 4rem auto; max-width: 32rem"><h1 style="font-size: 1.3rem">AI Workbench</h1><p>${message}</p></body></html>`;
}
