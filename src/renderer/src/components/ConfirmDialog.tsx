import { useState, type ReactNode } from 'react';
import { errorText } from '../../../shared/error-data';
import { Dialog } from './Dialog';

export interface ConfirmDialogProps {
  title: string;
  confirmLabel: string;
  children: ReactNode;
  /** A rejection keeps the dialog open and shows what went wrong in it. */
  onConfirm(): Promise<void>;
  onCancel(): void;
}

/** A modal confirmation of something that cannot be undone: focus is trapped, Escape cancels. */
export function ConfirmDialog({
  title,
  confirmLabel,
  children,
  onConfirm,
  onCancel,
}: ConfirmDialogProps): React.JSX.Element {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <Dialog
      title={title}
      className="dialog"
      onClose={onCancel}
      actions={
        <>
          <button type="button" className="button" onClick={onCancel} disabled={busy} autoFocus>
            Cancel
          </button>
          <button
            type="button"
            className="button button-danger"
            disabled={busy}
            onClick={() => {
              setBusy(true);
              setProblem(null);
              onConfirm().then(
                () => setBusy(false),
                (error: unknown) => {
                  setProblem(errorText(error));
                  setBusy(false);
                },
              );
            }}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      <p>{children}</p>
      {problem && (
        <p className="dialog-error" role="alert">
          {problem}
        </p>
      )}
    </Dialog>
  );
}
