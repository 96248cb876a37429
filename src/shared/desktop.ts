import { z } from './zod';

/**
 * The `desktop` section of settings.json: what only the desktop app does (the global quick-chat
 * shortcut, approval notifications, the tray icon). Browser mode and the CLI ignore it.
 */

export const DEFAULT_QUICK_CHAT_SHORTCUT = 'CommandOrControl+Shift+Space';

const MODIFIERS = new Set([
  'command',
  'cmd',
  'control',
  'ctrl',
  'commandorcontrol',
  'cmdorctrl',
  'alt',
  'option',
  'altgr',
  'shift',
  'super',
  'meta',
]);
const NAMED_KEYS = new Set([
  'plus',
  'space',
  'tab',
  'capslock',
  'numlock',
  'scrolllock',
  'backspace',
  'delete',
  'insert',
  'return',
  'enter',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  'escape',
  'esc',
  'printscreen',
  'volumeup',
  'volumedown',
  'volumemute',
  'medianexttrack',
  'mediaprevioustrack',
  'mediastop',
  'mediaplaypause',
  'numdec',
  'numadd',
  'numsub',
  'nummult',
  'numdiv',
]);
const PUNCTUATION = new Set([...')!@#$%^&*(:;=<,_->.?/~`{][|\\}"\'']);

/**
 * Why `accelerator` is not a usable global shortcut in Electron's syntax (`CommandOrControl+Shift+Space`),
 * or null when it is: modifiers first, then exactly one key; at least one modifier unless the key is F1–F24.
 */
export function acceleratorProblem(accelerator: string): string | null {
  const parts = accelerator.split('+');
  // "Plus" names the + key; a bare "+" at the end would split into empty parts.
  if (parts.some((part) => part.trim() === '')) return 'has an empty part (write the + key as "Plus")';
  const key = (parts.at(-1) as string).trim();
  const modifiers = parts.slice(0, -1).map((part) => part.trim().toLowerCase());
  const unknown = modifiers.find((modifier) => !MODIFIERS.has(modifier));
  if (unknown !== undefined)
    return `"${unknown}" is not a modifier (use CommandOrControl, Control, Alt, Shift, Super…)`;
  if (new Set(modifiers).size !== modifiers.length) return 'names a modifier twice';
  const lower = key.toLowerCase();
  const isFunctionKey = /^f([1-9]|1[0-9]|2[0-4])$/.test(lower);
  const isKey =
    /^[a-z0-9]$/.test(lower) ||
    isFunctionKey ||
    NAMED_KEYS.has(lower) ||
    /^num[0-9]$/.test(lower) ||
    PUNCTUATION.has(key);
  if (!isKey) return `"${key}" is not a key Electron knows (A–Z, 0–9, F1–F24, Space, Enter, Up…)`;
  if (modifiers.length === 0 && !isFunctionKey)
    return 'needs a modifier (a global shortcut without one would take the key from every app)';
  return null;
}

export const AcceleratorSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .superRefine((value, context) => {
    const problem = acceleratorProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: `is not a usable shortcut: ${problem}` });
  });

export const DesktopSettingsSchema = z.strictObject({
  /** Opens and hides quick chat from anywhere; null turns the global shortcut off. */
  quickChatShortcut: AcceleratorSchema.nullable().default(DEFAULT_QUICK_CHAT_SHORTCUT),
  /** An OS notification when a call waits for you and no window of the app has the focus. */
  notifyApprovals: z.boolean().default(true),
  /** The tray (menu bar) icon with Open, Quick chat, the waiting approvals and Quit. */
  tray: z.boolean().default(true),
});
export type DesktopSettings = z.infer<typeof DesktopSettingsSchema>;
/** What `DesktopSettingsSchema.parse({})` gives, written out (see DEFAULT_APPROVAL_POLICY); defaults.test.ts keeps them equal. */
export const DEFAULT_DESKTOP_SETTINGS: DesktopSettings = {
  quickChatShortcut: DEFAULT_QUICK_CHAT_SHORTCUT,
  notifyApprovals: true,
  tray: true,
};
