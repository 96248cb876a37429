import { lazy, memo, Suspense, useContext, useEffect, useId, useState } from 'react';
import type { McpContent } from '../../../shared/mcp-result';
import type { ToolCallRecord, ToolProgress } from '../../../shared/messages';
import { ChevronIcon, ToolIcon } from '../components/icons';
import { ranWithoutAsking } from '../../../shared/why-words';
import { formatDuration, prettyJson, prettyText, STATUS_LABELS } from './format';
import { CopyButton } from '../components/CopyButton';
import { ResourceLink } from './resources/ResourceLink';
import { SandboxBlockLine } from '../components/SandboxBlock';
import { asWidening } from '../components/WideningCard';
import { grantForBlock, type SandboxGrant, type SandboxWidening } from '../../../shared/sandbox';
import { ChatContext, useChatContext } from './chat-context';
import { visibleText } from '../../../shared/visible-text';
import { TaskLine } from './TaskLine';

/** A tool's MCP Apps view: its own chunk, loaded when a result with a view is shown (docs/user/mcp-apps.md). */
const AppView = lazy(() => import('./apps/AppView').then((module) => ({ default: module.AppView })));

/**
 * A tool call as it looks in a reply (seed 000 "as they look now"): collapsed, one line — server · tool · status ·
 * duration; expanded, its arguments and output. An auto-approved or auto-denied call says why in a small badge.
 */
export const ToolCallBlock = memo(function ToolCallBlock({ call }: { call: ToolCallRecord }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const status = call.status;
  const auto =
    call.decision?.actor === 'policy'
      ? call.decision.outcome === 'allow'
        ? 'Auto-approved'
        : call.decision.outcome === 'deny'
          ? 'Auto-denied'
          : null
      : null;
  // Ran only because approvals were off: said on the block itself, not only in "Why" (docs/user/approvals.md#when-approvals-are-off).
  const approvalsOff = call.decision?.approvalsOff;
  const label = call.serverName ? `${call.serverName} · ${call.toolName}` : call.modelCall.name;
  return (
    <div className={`tool-block status-${status}`} data-tool-call-id={call.toolCallId} data-testid="tool-call">
      <button
        type="button"
        className="tool-block-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <span className="tool-block-chevron">
          <ChevronIcon size={14} />
        </span>
        <span className="tool-block-icon">
          <ToolIcon size={14} />
        </span>
        <span className="tool-block-name">
          {call.serverName && <span className="tool-block-server">{call.serverName}</span>}
          {call.serverName && <span className="tool-block-dot"> · </span>}
          <span className="tool-block-tool">{call.toolName || call.modelCall.name}</span>
        </span>
        <span className={`status-chip status-chip-${status}`} aria-label={`Status: ${STATUS_LABELS[status]}`}>
          {status === 'running' && <span className="spinner" aria-hidden="true" />}
          {STATUS_LABELS[status]}
        </span>
        {call.decision?.edited && <span className="tag">edited</span>}
        {approvalsOff ? (
          <span className="why-badge why-off" title={call.decision?.reason}>
            {approvalsOff === 'chat' ? 'Not asked: this chat never asks' : 'Not asked: approvals off'}
          </span>
        ) : (
          auto && (
            <span
              className={`why-badge ${call.decision?.outcome === 'deny' ? 'why-deny' : ''}`}
              title={call.decision?.reason}
            >
              {auto}
            </span>
          )
        )}
        {call.durationMs !== undefined && (
          <span className="tool-block-duration">{formatDuration(call.durationMs)}</span>
        )}
      </button>
      {/* Why it did not ask: the rule or setting that let it run (docs/user/approvals.md, "In the window"). */}
      {call.decision?.actor === 'policy' && call.decision.outcome === 'allow' && !approvalsOff && (
        <p className="tool-block-why-line">{ranWithoutAsking(call.decision.reason)}</p>
      )}
      {call.task ? (
        <TaskLine call={call} label={label} />
      ) : (
        status === 'running' && call.progress && <ProgressLine progress={call.progress} label={label} />
      )}
      {call.result?.sandboxBlocks && call.result.sandboxBlocks.length > 0 && <SandboxBlocks call={call} />}
      {(status === 'error' || status === 'denied' || status === 'timeout') &&
        !open &&
        (call.error || call.decision?.userReason) && (
          <p className="tool-block-error-line" role={status === 'error' ? 'note' : undefined}>
            {call.error ?? call.decision?.userReason}
          </p>
        )}
      {open && (
        <div className="tool-block-body" id={bodyId} role="region" aria-label={`${label} details`}>
          {call.decision && (
            <p className="tool-block-why">
              <span className="muted">Why: </span>
              {call.decision.reason}
              {call.decision.userReason && <> — “{call.decision.userReason}”</>}
            </p>
          )}
          <Section title={call.decision?.edited ? 'Arguments (edited)' : 'Arguments'} text={prettyJson(call.args)} />
          {call.originalArgs && <Section title="Arguments the model sent" text={prettyJson(call.originalArgs)} />}
          {call.error && (
            <div className="tool-output-error" role="note">
              {call.error}
            </div>
          )}
          {call.result && <Output call={call} />}
        </div>
      )}
      {call.viewUri && call.serverName && status === 'success' && call.result && <ViewSlot call={call} />}
    </div>
  );
});

/**
 * What the server's sandbox refused it during this call, each with "Allow…" (docs/user/sandbox.md#blocks): a widening
 * request the person then allows or denies on its card.
 */
function SandboxBlocks({ call }: { call: ToolCallRecord }): React.JSX.Element | null {
  const chat = useContext(ChatContext);
  const blocks = call.result?.sandboxBlocks ?? [];
  const [waiting, setWaiting] = useState<SandboxWidening[]>([]);
  const api = chat?.api;
  useEffect(() => {
    // Requests made from these blocks that still wait (made before a reload, or in another window).
    let live = true;
    api?.serverRequests.list({}).then(
      (result) => {
        if (!live) return;
        setWaiting(
          result.requests.flatMap((request) =>
            request.kind === 'sandbox-widening' && request.toolCallId === call.toolCallId ? [asWidening(request)] : [],
          ),
        );
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, [api, call.toolCallId]);
  if (!chat) return null;
  return (
    <ul className="sandbox-blocks" aria-label={`What the sandbox blocked during ${call.toolName}`}>
      {blocks.map((block, index) => (
        <SandboxBlockLine
          key={index}
          api={chat.api}
          serverName={call.serverName}
          block={block}
          suffix={'count' in block && block.count ? `· ${block.count} times` : undefined}
          chatId={chat.store.chatId}
          toolCallId={call.toolCallId}
          waiting={
            'kind' in block ? waiting.find((widening) => sameGrant(widening.grant, grantForBlock(block))) : undefined
          }
        />
      ))}
    </ul>
  );
}

const sameGrant = (a: SandboxGrant, b: SandboxGrant): boolean => JSON.stringify(a) === JSON.stringify(b);

function ViewSlot({ call }: { call: ToolCallRecord }): React.JSX.Element {
  const { api, store } = useChatContext();
  return (
    <Suspense fallback={<p className="app-view-loading muted">Loading the view…</p>}>
      <AppView call={call} api={api} chatId={store.chatId} />
    </Suspense>
  );
}

/** The server's progress notifications (docs/user/mcp-servers.md#progress): a bar when it says the total, else a count. */
function ProgressLine({ progress, label }: { progress: ToolProgress; label: string }): React.JSX.Element {
  const known = progress.total !== undefined && progress.total > 0;
  const fraction = known ? Math.min(1, Math.max(0, progress.progress / (progress.total as number))) : undefined;
  const words = known ? `${progress.progress} of ${progress.total}` : `${progress.progress} so far`;
  return (
    <div className="tool-progress" data-testid="tool-progress">
      <div
        className={`tool-progress-track${known ? '' : ' is-indeterminate'}`}
        role="progressbar"
        aria-label={`${label} progress`}
        aria-valuemin={0}
        aria-valuemax={known ? progress.total : undefined}
        aria-valuenow={known ? progress.progress : undefined}
        aria-valuetext={progress.message ? `${words}: ${progress.message}` : words}
      >
        <div
          className="tool-progress-fill"
          style={fraction !== undefined ? { width: `${Math.round(fraction * 100)}%` } : undefined}
        />
      </div>
      <span className="tool-progress-text">
        {progress.message ? `${progress.message} · ` : ''}
        {known ? `${Math.round((fraction as number) * 100)}%` : words}
      </span>
    </div>
  );
}

function Section({ title, text }: { title: string; text: string }): React.JSX.Element {
  return (
    <div className="tool-section">
      <div className="tool-section-bar">
        <span>{title}</span>
        <CopyButton text={text} label={`Copy ${title.toLowerCase()}`} />
      </div>
      <pre className="tool-pre">{text}</pre>
    </div>
  );
}

function Output({ call }: { call: ToolCallRecord }): React.JSX.Element | null {
  const result = call.result;
  if (!result) return null;
  const parts = result.content;
  return (
    <div className={`tool-section${result.isError ? ' is-error' : ''}`}>
      <div className="tool-section-bar">
        <span>{result.isError ? 'Output (the tool reported an error)' : 'Output'}</span>
        <CopyButton text={result.forModel.text} label="Copy output" />
      </div>
      {result.pageDeclined && result.protocolError ? (
        // Our words first, then the server's own, shown as text (docs/user/server-requests.md, "Elicitation").
        <div className="tool-page-declined" data-testid="page-declined">
          <p>
            Not run: {call.serverName} needs a page opened first, and you{' '}
            {result.pageDeclined.action === 'decline' ? 'declined' : 'cancelled'} it. Nothing was sent to the tool.
          </p>
          <p className="muted">
            The page: <code className="tool-page-declined-url">{visibleText(result.pageDeclined.url)}</code>
          </p>
          <p className="tool-page-declined-server">
            <span className="muted">
              {call.serverName}&apos;s own words (error {result.protocolError.code}):
            </span>{' '}
            <q data-testid="server-words">{visibleText(result.protocolError.message)}</q>
          </p>
        </div>
      ) : (
        <>
          {parts.length === 0 && result.structuredContent === undefined && (
            <p className="muted tool-empty">The tool returned nothing.</p>
          )}
          {parts.map((part, index) => (
            <Part key={index} part={part} server={call.serverName} />
          ))}
          {parts.length === 0 && result.structuredContent !== undefined && (
            <pre className="tool-pre">{prettyJson(result.structuredContent)}</pre>
          )}
        </>
      )}
      {result.protocolError && !result.pageDeclined && (
        <p className="tool-output-error">
          Server error {result.protocolError.code}: {result.protocolError.message}
        </p>
      )}
    </div>
  );
}

function Part({ part, server }: { part: McpContent; server: string }): React.JSX.Element {
  switch (part.type) {
    case 'text': {
      const pretty = prettyText(part.text);
      // A long output scrolls inside its box: focusable, so the keyboard can scroll it too (docs/user/accessibility.md#keyboard).
      return (
        <pre className={`tool-pre${pretty.json ? ' is-json' : ''}`} tabIndex={0}>
          {pretty.text}
        </pre>
      );
    }
    case 'image':
      return (
        <img
          className="tool-image"
          src={`data:${part.mimeType};base64,${part.data}`}
          alt="Image returned by the tool"
        />
      );
    case 'audio':
      return (
        <p className="muted tool-empty">
          Audio ({part.mimeType}, {Math.round((part.data.length * 3) / 4 / 1024)} KB)
        </p>
      );
    case 'resource_link':
      return server ? (
        <ResourceLink server={server} uri={part.uri} name={part.title ?? part.name} description={part.description} />
      ) : (
        <p className="tool-resource">
          {part.title ?? part.name} <span className="muted">{part.uri}</span>
        </p>
      );
    case 'resource':
      return part.text !== undefined ? (
        <pre className="tool-pre">{part.text}</pre>
      ) : (
        <p className="muted tool-empty">
          {part.uri} ({part.mimeType ?? 'binary'})
        </p>
      );
    case 'unknown':
      return <pre className="tool-pre">{prettyJson(part.original)}</pre>;
  }
}
