import { DEFAULT_DESKTOP_SETTINGS, DesktopSettingsSchema, type DesktopSettings } from '../../shared/desktop';
import type { SettingsSection, SettingsStore } from '../settings/settings-store';

export const DESKTOP_SETTINGS_SECTION = 'desktop';

/** The `desktop` section; a bad value throws `SettingsError` naming the field (e.g. `desktop.quickChatShortcut`). */
export function openDesktopSettings(settings: SettingsStore): SettingsSection<DesktopSettings> {
  return settings.section(DESKTOP_SETTINGS_SECTION, DesktopSettingsSchema, DEFAULT_DESKTOP_SETTINGS);
}
