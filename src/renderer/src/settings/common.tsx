import { useId, type ReactNode } from 'react';
import { Dialog } from '../components/Dialog';

export { errorText } from '../../../shared/error-data';

/** `12 Mar 2026, 14:05:09` in the person's locale. */
export function formatTime(value: number | string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime())
    ? String(value)
    : date.toLocaleString(undefined, {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
}

/** `23 Nov 13:49:32`: for tables, where the full time is in the cell's tooltip. */
export function formatShortTime(value: number | string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime())
    ? String(value)
    : date.toLocaleString(undefined, {
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hour12: false,
      });
}

export interface ModalProps {
  title: string;
  /** A wider dialog for forms and tables. */
  wide?: boolean;
  children: ReactNode;
  actions: ReactNode;
  onClose(): void;
  testId?: string;
}

/** A modal stacked above the settings: focus is trapped, Escape closes it alone. */
export function Modal({ title, wide, children, actions, onClose, testId }: ModalProps): React.JSX.Element {
  return (
    <Dialog
      title={title}
      className={`dialog settings-modal${wide ? ' is-wide' : ''}`}
      actions={actions}
      onClose={onClose}
      testId={testId}
    >
      <div className="settings-modal-body">{children}</div>
    </Dialog>
  );
}

export interface SwitchProps {
  checked: boolean;
  label: string;
  description?: ReactNode;
  disabled?: boolean;
  onChange(checked: boolean): void;
}

/** An on/off setting: a button with role "switch", its label and an optional line of explanation. */
export function Switch({ checked, label, description, disabled, onChange }: SwitchProps): React.JSX.Element {
  const labelId = useId();
  const descriptionId = useId();
  return (
    <div className="switch-row">
      <div className="switch-text">
        <span id={labelId} className="switch-label">
          {label}
        </span>
        {description && (
          <span id={descriptionId} className="switch-description muted">
            {description}
          </span>
        )}
      </div>
      <button
        type="button"
        role="switch"
        className="switch"
        aria-checked={checked}
        aria-labelledby={labelId}
        aria-describedby={description ? descriptionId : undefined}
        disabled={disabled}
        onClick={() => onChange(!checked)}
      >
        <span className="switch-thumb" />
      </button>
    </div>
  );
}

export interface FieldProps {
  label: string;
  hint?: ReactNode;
  problem?: string | undefined;
  children(props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }): ReactNode;
}

/** A labelled form field with its hint and, when the value was refused, the reason right under it. */
export function Field({ label, hint, problem, children }: FieldProps): React.JSX.Element {
  const id = useId();
  const hintId = useId();
  const problemId = useId();
  const describedBy = [hint ? hintId : '', problem ? problemId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(problem), 'aria-describedby': describedBy })}
      {hint && (
        <span id={hintId} className="field-hint muted">
          {hint}
        </span>
      )}
      {problem && (
        <span id={problemId} className="field-problem" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

/** A one-line message under a section: an error (role alert), or a success/info note (role status). */
export function Notice({
  kind,
  children,
}: {
  kind: 'error' | 'success' | 'warning' | 'info';
  children: ReactNode;
}): React.JSX.Element {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'error' || kind === 'warning' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description: ReactNode;
  actions?: ReactNode;
}): React.JSX.Element {
  return (
    <header className="settings-page-header">
      <div>
        <h2>{title}</h2>
        <p className="muted">{description}</p>
      </div>
      {actions && <div className="settings-page-actions">{actions}</div>}
    </header>
  );
}
