import { CloseIcon } from './icons';

export interface ErrorToastProps {
  message: string;
  onDismiss(): void;
}

export function ErrorToast({ message, onDismiss }: ErrorToastProps): React.JSX.Element {
  return (
    <div className="toast" role="alert">
      <span>{message}</span>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
        <CloseIcon size={14} />
      </button>
    </div>
  );
}
