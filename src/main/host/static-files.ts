import fs from 'node:fs/promises';
import path from 'node:path';

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

export interface StaticFile {
  body: Buffer;
  contentType: string;
  /** Hashed build assets never change and may be cached; the page shell must not be. */
  immutable: boolean;
}

/**
 * Resolves a URL path inside the built renderer folder. Paths without an extension are app
 * routes and get the page shell; anything that escapes the folder or does not exist is null.
 */
export async function readStaticFile(root: string, urlPath: string): Promise<StaticFile | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = path.posix.normalize(decoded).replace(/^\/+/, '');
  const isRoute = relative === '' || relative === '.' || path.posix.extname(relative) === '';
  const target = path.resolve(root, isRoute ? 'index.html' : relative);
  if (target !== path.resolve(root) && !target.startsWith(path.resolve(root) + path.sep)) return null;
  try {
    const body = await fs.readFile(target);
    const contentType = MIME_TYPES[path.extname(target).toLowerCase()] ?? 'application/octet-stream';
    return { body, contentType, immutable: !isRoute && relative.startsWith('assets/') };
  } catch {
    return null;
  }
}
