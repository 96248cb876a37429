import type { AuditEntry } from '../../../../shared/audit';
import { Modal, Notice, formatTime } from '../common';
import { ACTOR_LABELS, DECISION_LABELS, KIND_LABELS } from './audit-filters';

/** One audit row in full: redacted arguments, hashes, who and what decided, and the chain links. */
export function AuditRowDetail({
  entry,
  chatTitle,
  broken,
  onClose,
}: {
  entry: AuditEntry;
  chatTitle?: string | undefined;
  broken: boolean;
  onClose(): void;
}): React.JSX.Element {
  const policy = entry.kind === 'policy';
  const facts: [string, React.ReactNode][] = [
    ['Time', formatTime(entry.time)],
    ['Kind', KIND_LABELS[entry.kind]],
  ];
  if (!policy || entry.chatId !== '') facts.push(['Chat', chatTitle ? `${chatTitle} (${entry.chatId})` : entry.chatId]);
  if (!policy || entry.serverName !== '') facts.push(['Server · tool', `${entry.serverName} · ${entry.toolName}`]);
  if (!policy) facts.push(['Tool call', entry.toolCallId]);
  if (entry.decision) facts.push(['Decision', DECISION_LABELS[entry.decision]]);
  if (policy) {
    if (entry.actor) facts.push(['Changed by', ACTOR_LABELS[entry.actor]]);
    facts.push(['What changed', entry.decidedBy ?? '']);
  } else if (entry.actor)
    facts.push(['Decided by', `${ACTOR_LABELS[entry.actor]}${entry.decidedBy ? ` — ${entry.decidedBy}` : ''}`]);
  if (entry.reason) facts.push(['Reason given', entry.reason]);
  if (entry.outcome) facts.push(['Outcome', entry.outcome === 'success' ? 'Succeeded' : 'Failed']);
  if (entry.durationMs !== null) facts.push(['Duration', `${Math.round(entry.durationMs)} ms`]);
  if (entry.resultBytes !== null) facts.push(['Result size', `${entry.resultBytes.toLocaleString()} bytes`]);
  if (entry.error) facts.push(['Error', entry.error]);

  const hashes: [string, string | null][] = [
    [policy ? 'Before hash' : 'Arguments hash', entry.argsHash],
    [policy ? 'After hash' : 'Edited arguments hash', entry.editedArgsHash],
    ['Tool definition hash', entry.definitionHash],
    ['Row hash', entry.hash],
    ['Previous row hash', entry.previousHash],
  ];

  return (
    <Modal
      title={`Audit row #${entry.sequence}`}
      wide
      onClose={onClose}
      testId="audit-detail"
      actions={
        <button type="button" className="button" onClick={onClose} autoFocus>
          Close
        </button>
      }
    >
      {broken && <Notice kind="error">Verification found this row broken: it is not what was recorded.</Notice>}
      <dl className="detail-list">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {entry.kind === 'decision' && (
        <>
          <h3 className="small-heading">Arguments (redacted)</h3>
          <pre className="code-block">{JSON.stringify(entry.args, null, 2)}</pre>
          {entry.editedArgs !== null && (
            <>
              <h3 className="small-heading">Edited arguments (redacted)</h3>
              <pre className="code-block">{JSON.stringify(entry.editedArgs, null, 2)}</pre>
            </>
          )}
        </>
      )}
      {policy && (
        <>
          <h3 className="small-heading">Before (redacted)</h3>
          <pre className="code-block" data-testid="policy-before">
            {JSON.stringify(entry.args, null, 2)}
          </pre>
          <h3 className="small-heading">After (redacted)</h3>
          <pre className="code-block" data-testid="policy-after">
            {JSON.stringify(entry.editedArgs, null, 2)}
          </pre>
        </>
      )}
      <h3 className="small-heading">Hashes (SHA-256)</h3>
      <dl className="detail-list hashes">
        {hashes
          .filter(([, value]) => value !== null)
          .map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd className="mono">{value}</dd>
            </div>
          ))}
      </dl>
    </Modal>
  );
}
