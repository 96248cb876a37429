import { useEffect, useRef, useState } from 'react';
import { CHAT_TITLE_MAX_LENGTH } from '../../../shared/limits';

export interface TitleEditorProps {
  initial: string;
  label: string;
  /** Resolves true when the title was saved; false keeps the editor open so nothing typed is lost. */
  onCommit(title: string): Promise<boolean>;
  onCancel(): void;
  className?: string;
}

/** Inline title editing: Enter or leaving the field saves, Escape cancels. */
export function TitleEditor({ initial, label, onCommit, onCancel, className }: TitleEditorProps): React.JSX.Element {
  const [value, setValue] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const settled = useRef(false);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const commit = async (): Promise<void> => {
    if (settled.current) return;
    const title = value.trim();
    if (!title) {
      setProblem('A title cannot be empty.');
      return;
    }
    settled.current = true;
    if (!(await onCommit(title))) settled.current = false;
  };

  return (
    <span className={`title-editor ${className ?? ''}`}>
      <input
        ref={input}
        aria-label={label}
        aria-invalid={problem !== null}
        maxLength={CHAT_TITLE_MAX_LENGTH}
        value={value}
        onChange={(event) => {
          setValue(event.target.value);
          setProblem(null);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') void commit();
          if (event.key === 'Escape') {
            settled.current = true;
            onCancel();
          }
        }}
        onBlur={() => void commit()}
      />
      {problem && (
        <span className="field-problem" role="alert">
          {problem}
        </span>
      )}
    </span>
  );
}
