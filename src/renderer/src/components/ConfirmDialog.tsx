import { useState, type ReactNode } from 'react';
import { Dialog } from './Dialog';

export interface ConfirmDialogProps {
  title: string;
  confirmLabel: string;
  children: ReactNode;
  onConfirm(): Promise<void>;
  onCancel(): void;
}

/** A modal confirmation: focus is trapped, Escape cancels. */
export function ConfirmDialog({ title, confirmLabel, children, onConfirm, onCancel }: ConfirmDialogProps): React.JSX.Element {
  const [busy, setBusy] = useState(false);
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
              void onConfirm().finally(() => setBusy(false));
            }}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      <p>{children}</p>
    </Dialog>
  );
}
