import { useEffect, useId, useRef, useState } from 'react';
import type { RememberKind, RememberOptions, ToolCallRequest } from '../../../../shared/approval';
import { errorText } from '../../../../shared/error-data';
import { REMEMBER_WORDS } from '../../../../shared/decisions';
import type { ChatStore } from '../chat-store';
import { useKeepInView } from '../../components/keep-in-view';
import { RememberDialog } from './RememberDialog';

const ORDER: readonly RememberKind[] = ['tool', 'rule', 'server'];

/**
 * The card's quiet "More…" menu beside seed 000's three buttons (docs/user/approvals.md "Remember from the card"): each
 * action is offered only where it can work, and a refused one says why. Choosing one opens a confirmation; nothing
 * changes before it is confirmed.
 */
export function RememberMenu({
  store,
  request,
  blocked,
}: {
  store: ChatStore;
  request: ToolCallRequest;
  blocked: boolean;
}): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const [options, setOptions] = useState<RememberOptions | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [chosen, setChosen] = useState<RememberKind | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();
  // Opened near the end of the chat, the menu flips above "More…" instead of opening under the approval bar.
  useKeepInView(menu, button, open, [options, problem]);

  /** Opens the menu with the offers for the arguments the card shows now (an edit changes them). */
  const show = (): void => {
    setOpen(true);
    setOptions(null);
    setProblem(null);
    store.rememberOptions(request.toolCallId).then(setOptions, (error: unknown) => setProblem(errorText(error)));
  };
  useEffect(() => {
    if (open && options) menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [open, options]);

  const close = (): void => {
    setOpen(false);
    button.current?.focus();
  };
  const onMenuKey = (event: React.KeyboardEvent<HTMLDivElement>): void => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const index = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'Escape') {
      // Escape closes the menu only: it must not reach the card, where it would deny the call.
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      items[(index + step + items.length) % items.length]?.focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      (event.key === 'Home' ? items[0] : items.at(-1))?.focus();
    } else if (event.key === 'Tab') {
      setOpen(false);
    }
  };

  return (
    <span className="remember">
      <button
        ref={button}
        type="button"
        className="chat-link"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        {...(blocked ? { 'aria-disabled': true } : {})}
        onClick={() => (blocked ? undefined : open ? setOpen(false) : show())}
        onKeyDown={(event) => {
          // Enter and Escape belong to the button here, not to the card's Allow once / Deny.
          if (event.key === 'Enter' || event.key === 'Escape') event.stopPropagation();
          if (event.key === 'Escape' && open) close();
        }}
        data-testid="remember-more"
      >
        More…
      </button>
      {open && (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label={`Remember for ${request.toolName}`}
          className="remember-menu"
          onKeyDown={onMenuKey}
          data-testid="remember-menu"
        >
          {!options && !problem && <p className="muted small remember-loading">Checking what can be remembered…</p>}
          {problem && <p className="field-problem">{problem}</p>}
          {options &&
            ORDER.map((kind) => {
              const offer = options[kind];
              const hintId = `${menuId}-${kind}`;
              return (
                <div key={kind} className="remember-item">
                  <button
                    type="button"
                    role="menuitem"
                    className="remember-action"
                    {...(offer.offered ? {} : { 'aria-disabled': true, 'aria-describedby': hintId })}
                    onClick={() => {
                      if (!offer.offered) return;
                      setOpen(false);
                      setChosen(kind);
                    }}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter') event.stopPropagation();
                    }}
                  >
                    {REMEMBER_WORDS[kind]}
                  </button>
                  {!offer.offered && (
                    <span id={hintId} className="remember-refusal small">
                      Not offered: {offer.refusal}
                    </span>
                  )}
                </div>
              );
            })}
        </div>
      )}
      {chosen && options && (
        <RememberDialog
          store={store}
          request={request}
          kind={chosen}
          options={options}
          onClose={() => {
            setChosen(null);
            button.current?.focus();
          }}
        />
      )}
    </span>
  );
}
