export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What is remembered of the main window between launches. */
export interface WindowState {
  bounds?: Bounds;
  maximized: boolean;
}

/**
 * The saved bounds when they still fit a display that exists now (at least 100×50 pixels of the
 * window on one work area); undefined otherwise, so a window is never restored off-screen after a
 * monitor was unplugged.
 */
export function restorableBounds(
  saved: Bounds | undefined,
  workAreas: readonly Bounds[],
  minimum = { width: 720, height: 480 },
): Bounds | undefined {
  if (!saved || saved.width < minimum.width || saved.height < minimum.height) return undefined;
  const visible = workAreas.some((area) => {
    const width = Math.min(saved.x + saved.width, area.x + area.width) - Math.max(saved.x, area.x);
    const height = Math.min(saved.y + saved.height, area.y + area.height) - Math.max(saved.y, area.y);
    return width >= 100 && height >= 50;
  });
  return visible ? saved : undefined;
}
