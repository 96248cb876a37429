import { useCallback, useState } from 'react';
import type { ElicitationProblem, FieldValue } from '../../../../shared/elicitation-fields';

/** A sampling prompt as the person edits it: the system prompt and each message's text. */
export interface SamplingPromptState {
  readonly systemPrompt: string;
  readonly messages: readonly string[];
}

/** The model's answer to a sampling request, as the person edits it before it goes back. */
export interface SamplingAnswerState {
  readonly text: string;
}

/** A form as the person fills it: every field's value, and the fields corrected since the last refusal. */
export interface ElicitationFormState {
  readonly values: Readonly<Record<string, FieldValue>>;
  /** The fields corrected since the refusal `of` (their mark is gone until Accept checks the form again). */
  readonly corrected: { readonly of: readonly ElicitationProblem[]; readonly names: ReadonlySet<string> };
}

/** What the last answer came back with: the card's problem in words, and a refused form's problems by field. */
export interface RequestOutcomeState {
  readonly problem: string | null;
  readonly fieldProblems: readonly ElicitationProblem[];
}

/** Each part of a server request's card kept across its unmounts, by name. */
export interface RequestCardParts {
  prompt: SamplingPromptState;
  answer: SamplingAnswerState;
  form: ElicitationFormState;
  outcome: RequestOutcomeState;
}

export type RequestCardPart = keyof RequestCardParts;

/**
 * What a waiting server request's card holds besides its request (docs/dev/chat-list.md, "Cards kept while out of
 * view"): the prompt or answer as edited, a form's values and which fields are marked, and the last refusal. The
 * message list unmounts the card when its exchange scrolls away, and the tray's cards unmount when it is folded;
 * kept here, by request, the card comes back as it was left. Forgotten once the request no longer waits.
 */
export class RequestCardStates {
  private readonly requests = new Map<string, Partial<RequestCardParts>>();

  get<P extends RequestCardPart>(requestId: string, part: P): RequestCardParts[P] | undefined {
    return this.requests.get(requestId)?.[part];
  }

  set<P extends RequestCardPart>(requestId: string, part: P, value: RequestCardParts[P]): void {
    let parts = this.requests.get(requestId);
    if (!parts) this.requests.set(requestId, (parts = {}));
    parts[part] = value;
  }

  /** Forgets one request (it no longer waits). */
  forget(requestId: string): void {
    this.requests.delete(requestId);
  }

  /** Forgets every request not in `waiting`. */
  retain(waiting: ReadonlySet<string>): void {
    for (const requestId of this.requests.keys()) if (!waiting.has(requestId)) this.requests.delete(requestId);
  }

  get size(): number {
    return this.requests.size;
  }
}

/**
 * `useState` for a part of a server request's card, kept in `kept` across the card's unmounts. A change made after
 * the card unmounted (an answer that came back while it was out of view) is kept too.
 */
export function useRequestCardState<P extends RequestCardPart>(
  kept: RequestCardStates,
  requestId: string,
  part: P,
  initial: () => RequestCardParts[P],
): [
  RequestCardParts[P],
  (next: RequestCardParts[P] | ((previous: RequestCardParts[P]) => RequestCardParts[P])) => void,
] {
  const [value, setValue] = useState<RequestCardParts[P]>(() => kept.get(requestId, part) ?? initial());
  const set = useCallback(
    (next: RequestCardParts[P] | ((previous: RequestCardParts[P]) => RequestCardParts[P])) => {
      // What the store holds is the newest (a change made while the card was out of view); until the first change,
      // the card's own.
      const previous = kept.get(requestId, part) ?? value;
      const updated = typeof next === 'function' ? next(previous) : next;
      kept.set(requestId, part, updated);
      setValue(updated);
    },
    [kept, requestId, part, value],
  );
  return [value, set];
}
