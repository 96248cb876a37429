import { useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import { errorText } from '../../../shared/error-data';
import { grantForBlock, type SandboxWidening } from '../../../shared/sandbox';
import { WideningCard, asWidening } from './WideningCard';
import './sandbox.css';

/** A block with what was tried: the only kind the person can widen from (docs/user/sandbox.md#widening). */
export interface WidenableBlock {
  kind: 'read' | 'write' | 'connect' | 'env';
  target: string;
  text: string;
}

const ALLOW_WORDS: Record<WidenableBlock['kind'], string> = {
  read: 'Allow reading this path…',
  write: 'Allow writing this folder…',
  connect: 'Allow this host…',
  env: 'Allow this variable…',
};

/**
 * One block of a contained server, with "Allow…": a widening request that waits until the person allows or denies it
 * on the card it shows, which says exactly what it grants. Nothing is granted by the first click.
 */
export function SandboxBlockLine({
  api,
  serverName,
  block,
  chatId,
  toolCallId,
  suffix,
  waiting,
  onAsked,
}: {
  api: WorkbenchApi;
  serverName: string;
  block: WidenableBlock | { text: string };
  chatId?: string | undefined;
  toolCallId?: string | undefined;
  /** Shown after the sentence: when it happened, during which call. */
  suffix?: string | undefined;
  /** A request made from this block earlier that still waits (after a reload): its card is shown again. */
  waiting?: SandboxWidening | undefined;
  /** Told of the request this block made, whose card it shows (a page that lists the waiting ones shows it once). */
  onAsked?: ((widening: SandboxWidening) => void) | undefined;
}): React.JSX.Element {
  const [made, setWidening] = useState<SandboxWidening | null>(null);
  const widening = made ?? waiting ?? null;
  const [problem, setProblem] = useState<string | null>(null);
  const widenable = 'kind' in block ? block : null;
  return (
    <li className="sandbox-block" data-testid="sandbox-block">
      <div className="sandbox-block-line">
        <span className="sandbox-block-text">
          {block.text}
          {suffix && <span className="muted"> {suffix}</span>}
        </span>
        {widenable && !widening && (
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              setProblem(null);
              api.serverRequests
                .requestWidening({
                  name: serverName,
                  grant: grantForBlock(widenable),
                  ...(chatId ? { chatId } : {}),
                  ...(toolCallId ? { toolCallId } : {}),
                })
                .then(
                  (view) => {
                    setWidening(asWidening(view));
                    onAsked?.(asWidening(view));
                  },
                  (failure: unknown) => setProblem(errorText(failure)),
                );
            }}
          >
            {ALLOW_WORDS[widenable.kind]}
          </button>
        )}
      </div>
      {problem && (
        <p className="sandbox-problem" role="alert">
          {problem}
        </p>
      )}
      {widening && <WideningCard api={api} widening={widening} onDecided={setWidening} />}
    </li>
  );
}
