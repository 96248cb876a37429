import { useState } from 'react';
import { CheckIcon, CopyIcon } from './icons';

/** Copies `text` to the clipboard and says so for a moment (code blocks, answers, tool output). */
export function CopyButton({ text, label }: { text: string; label: string }): React.JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy-button"
      aria-label={copied ? 'Copied' : label}
      title={label}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? <CheckIcon size={13} /> : <CopyIcon size={13} />}
      <span>{copied ? 'Copied' : 'Copy'}</span>
    </button>
  );
}
