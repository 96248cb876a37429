import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface DialogProps {
  title: string;
  className: string;
  children: ReactNode;
  actions: ReactNode;
  /** Escape, or the dialog's own way out. */
  onClose(): void;
  testId?: string | undefined;
}

/**
 * A modal on the native <dialog>: focus is trapped, Escape calls `onClose` (and goes no further, so a dialog
 * stacked on another closes alone), the title names it for assistive technology.
 */
export function Dialog({ title, className, children, actions, onClose, testId }: DialogProps): React.JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      className={className}
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        event.stopPropagation();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      <div className="dialog-actions">{actions}</div>
    </dialog>
  );
}
