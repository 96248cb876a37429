/**
 * Beside the buttons of a call that an explicit ask decided (an ask rule, a tool or a chat set to "Always ask"):
 * "Allow for this chat" is recorded but will not stop the questions while that setting stands
 * (docs/dev/architecture.md, the decision order). The words come from the decision, so the card, the CLI and
 * `explain` say the same.
 */
export function KeepsAsking({ text }: { text: string }): React.JSX.Element {
  return (
    <p className="approval-keeps-asking" role="note" data-testid="approval-keeps-asking">
      {text}
    </p>
  );
}
