import type { Colors } from './terminal';

/** One prompt about something that waits on a person, as the frame prints it. */
export interface RequestFrame {
  /** The question: "Allow tool call from Files?", "Allow Everything to use your model?" */
  title: string;
  /** Beside the title, dimmed: "(2 of 3)", "sampling". */
  tag?: string | undefined;
  /** The kind's own lines (already indented and coloured). */
  body: readonly string[];
  /** What to weigh before answering, dimmed (seed 000's warning for a tool call). */
  warning?: string | undefined;
  /** Said in bold after the warning. */
  review?: string | undefined;
  /** The keys, one line each; the first is the answers, the rest dimmed. */
  choices: readonly string[];
  /** The time left, when there is a limit. */
  footer?: string | undefined;
}

/**
 * The ONE frame of every terminal prompt about something that waits on a person — a tool call, a server's sampling
 * request or its answer, a form, a page to open (docs/user/cli.md): a blank line, the question in bold with its tag,
 * the kind's body, the warning, the choices, the time left. Each kind brings only its body and its keys, as the
 * app's cards share `CardFrame`.
 */
export function writeRequestFrame(write: (text: string) => void, colors: Colors, frame: RequestFrame): void {
  write('\n');
  write(`${colors.bold(frame.title)}${frame.tag ? colors.dim(`  ${frame.tag}`) : ''}\n`);
  for (const line of frame.body) write(`${line}\n`);
  if (frame.warning) write(`${colors.dim(frame.warning)}\n`);
  if (frame.review) write(`${colors.bold(frame.review)}\n`);
  for (const [index, choices] of frame.choices.entries()) write(`${index === 0 ? choices : colors.dim(choices)}\n`);
  if (frame.footer) write(`${frame.footer}\n`);
}
