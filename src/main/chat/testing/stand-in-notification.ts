import type { NotificationLike, NotificationOptions } from '../notification-decisions';

/**
 * A stand-in for Electron's `Notification`, the one part of the desktop notification path that cannot exist here
 * (no Electron binary in tests): the same constructor options and `on('click' | 'close' | 'action')`, `show` and
 * `close`, and it presses its buttons as Electron reports them (`{ actionIndex }`). Every one made is kept in `made`.
 */
export class StandInNotification implements NotificationLike {
  static made: StandInNotification[] = [];
  private readonly listeners = new Map<string, ((details: { actionIndex: number }) => void)[]>();
  shown = false;
  closed = false;

  constructor(readonly options: NotificationOptions) {
    StandInNotification.made.push(this);
  }

  on(event: string, listener: (details: { actionIndex: number }) => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  show(): void {
    this.shown = true;
  }

  close(): void {
    this.closed = true;
    this.emit('close', -1);
  }

  /** The person presses the button with this text; throws when the notification has none. */
  press(text: string): void {
    const index = (this.options.actions ?? []).findIndex((action) => action.text === text);
    if (index < 0) throw new Error(`The notification has no button '${text}'.`);
    this.emit('action', index);
  }

  click(): void {
    this.emit('click', -1);
  }

  private emit(event: string, actionIndex: number): void {
    for (const listener of this.listeners.get(event) ?? []) listener({ actionIndex });
  }
}
