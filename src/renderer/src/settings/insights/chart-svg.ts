/**
 * The charts of the Insights page as SVG, drawn from the same figures as the page (docs/user/insights.md#exports), and
 * as PNG through the browser's own drawing of that SVG.
 */

export interface SvgSeries {
  label: string;
  color: string;
  values: readonly number[];
}

const escape = (text: string): string => text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);

function legend(series: readonly { label: string; color: string }[], left: number): string {
  return series
    .map(
      (entry, index) =>
        `<rect x="${left + index * 110}" y="8" width="10" height="10" fill="${entry.color}"/><text x="${left + index * 110 + 14}" y="17" font-size="10">${escape(entry.label)}</text>`,
    )
    .join('');
}

const frame = (title: string, width: number, height: number, body: string): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif"><title>${escape(title)}</title><rect width="100%" height="100%" fill="#fff"/>${body}</svg>`;

/** Width and height of an SVG this module drew. */
export function svgSize(svg: string): { width: number; height: number } {
  const match = /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg);
  return { width: Number(match?.[1] ?? 720), height: Number(match?.[2] ?? 320) };
}

/** A stacked bar chart as SVG, drawn from the same figures as the canvas (for a report). */
export function barsSvg(title: string, labels: readonly string[], series: readonly SvgSeries[]): string {
  const width = 720;
  const height = 320;
  const left = 48;
  const bottom = 48;
  const top = 32;
  const totals = labels.map((_, index) => series.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const slot = (width - left - 8) / Math.max(1, labels.length);
  const scale = (value: number): number => (value / max) * (height - top - bottom);
  const parts: string[] = [];
  labels.forEach((label, index) => {
    let y = height - bottom;
    for (const entry of series) {
      const value = entry.values[index] ?? 0;
      if (value === 0) continue;
      const h = scale(value);
      y -= h;
      parts.push(
        `<rect x="${(left + index * slot + slot * 0.15).toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="${entry.color}"><title>${escape(`${label}: ${entry.label} ${value}`)}</title></rect>`,
      );
    }
    if (labels.length <= 31 || index % Math.ceil(labels.length / 31) === 0) {
      parts.push(
        `<text x="${(left + index * slot + slot / 2).toFixed(1)}" y="${height - bottom + 14}" font-size="9" text-anchor="end" transform="rotate(-40 ${(left + index * slot + slot / 2).toFixed(1)} ${height - bottom + 14})">${escape(label)}</text>`,
      );
    }
  });
  return frame(
    title,
    width,
    height,
    `${legend(series, left)}<text x="4" y="${top}" font-size="10">${max}</text><line x1="${left}" y1="${height - bottom}" x2="${width - 8}" y2="${height - bottom}" stroke="#999"/>${parts.join('')}`,
  );
}

/**
 * Horizontal stacked bars, one row each (the HTML bar charts of the page: "Tools asked about most"), as SVG: the row's
 * name, its parts in the series' colours scaled to the largest row, and its total.
 */
export function rowsSvg(
  title: string,
  rows: readonly { label: string; values: readonly number[] }[],
  series: readonly { label: string; color: string }[],
): string {
  const width = 720;
  const labelWidth = 240;
  const right = 48;
  const top = 32;
  const rowHeight = 22;
  const height = top + Math.max(1, rows.length) * rowHeight + 8;
  const totals = rows.map((row) => row.values.reduce((sum, value) => sum + value, 0));
  const max = Math.max(1, ...totals);
  const scale = (value: number): number => (value / max) * (width - labelWidth - right);
  const parts: string[] = [];
  rows.forEach((row, index) => {
    const y = top + index * rowHeight;
    parts.push(
      `<text x="${labelWidth - 6}" y="${y + 14}" font-size="10" text-anchor="end" font-family="monospace">${escape(row.label)}</text>`,
    );
    let x = labelWidth;
    row.values.forEach((value, seriesIndex) => {
      const entry = series[seriesIndex];
      if (value === 0 || !entry) return;
      const w = scale(value);
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowHeight - 6}" fill="${entry.color}"><title>${escape(`${row.label}: ${entry.label} ${value}`)}</title></rect>`,
      );
      x += w;
    });
    parts.push(`<text x="${(x + 4).toFixed(1)}" y="${y + 14}" font-size="10">${totals[index] ?? 0}</text>`);
  });
  return frame(title, width, height, `${legend(series, 8)}${parts.join('')}`);
}

/** The SVG drawn at twice its size on a white canvas, as PNG. */
export async function svgPng(svg: string): Promise<Blob> {
  const { width, height } = svgSize(svg);
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = width * 2;
    canvas.height = height * 2;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('The picture could not be drawn: this browser has no 2D canvas.');
    context.scale(2, 2);
    context.drawImage(image, 0, 0, width, height);
    return await pngOf(canvas);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * A chart's canvas as PNG, on the background it is seen on: the canvas itself is transparent, its text and lines
 * drawn for the page behind it (light text in dark), so saved alone it would be unreadable in most viewers.
 */
export function canvasPng(source: HTMLCanvasElement, background: string): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = source.width;
  canvas.height = source.height;
  const context = canvas.getContext('2d');
  if (!context) return Promise.reject(new Error('The picture could not be drawn: this browser has no 2D canvas.'));
  context.fillStyle = background;
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(source, 0, 0);
  return pngOf(canvas);
}

function pngOf(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise<Blob>((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('The picture could not be drawn as PNG.'))),
      'image/png',
    ),
  );
}
