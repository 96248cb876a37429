/**
 * The approval bar's words (docs/user/approvals.md, "In the window"). Its number is the one the tab and sidebar
 * badges show — every call of the chat that waits, answered on its card or not (an answer is sent with the last) —
 * so the three never disagree; how many are answered comes after it.
 */
export function barCount(waiting: number, answered: number, submitting: boolean): string {
  if (waiting > 0 && answered === waiting)
    return submitting ? 'Sending your decisions…' : 'Your decisions were not sent — change one to send them again';
  const calls = `${waiting} tool call${waiting === 1 ? '' : 's'} ${waiting === 1 ? 'waits' : 'wait'} for your decision`;
  return answered === 0 ? calls : `${calls} · ${answered} answered, sent with the last`;
}
