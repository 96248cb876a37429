/**
 * The door every tool call passes on its way into a server (docs/dev/architecture.md, "The decision order"): the
 * supervisor asks it right before each `tools/call` request is sent — the first attempt and every retry, whether
 * after a -32042 page, a reconnect or a new sign-in — so a deny rule in force at that moment stops the call there,
 * whatever path brought it. The MCP host knows no policy: whoever builds it gives the door (services.ts).
 */

/** One call at the door: what is sent, and who it is for (the audit row of a refusal names them). */
export interface DoorCall {
  readonly serverName: string;
  readonly toolName: string;
  readonly args: Record<string, unknown>;
  readonly chatId?: string | undefined;
  readonly exchangeId?: string | undefined;
  readonly toolCallId?: string | undefined;
  readonly definitionHash?: string | undefined;
}

/**
 * Answers nothing to let the call through; throws `CallRefused` when a deny rule in force matches it (after
 * recording the refusal). Any other throw keeps the call out too: a door that cannot check stays shut.
 */
export type CallDoor = (call: DoorCall) => void;

/** A call the door kept out: a deny rule in force matched it. The audit row that names the rule is written. */
export class CallRefused extends Error {
  override readonly name = 'CallRefused';
  constructor(
    /** The rule's words, as the audit row has them. */
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The door of a host that has no policy (tests of the MCP host alone): every call goes in. */
export const OPEN_DOOR: CallDoor = () => {};
