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
  /** The page shell (index.html), which every app route gets. */
  shell: boolean;
}

/**
 * The built renderer folder, served. The hashed build assets (`assets/…`) never change: all of them are read as the
 * server starts and then answered from memory, at once. Read from disk at each request, a script the page asked for
 * waited while the server answered the page's first call (the chat list of 1,000 chats), which its entry sends while
 * the scripts load (docs/dev/benchmarks.md, app-start). The page shell and any other file are read at each request.
 */
export interface StaticFiles {
  /** The file a URL path names: app routes (no extension) get the page shell; what escapes the folder or does not exist is null. */
  read(urlPath: string): Promise<StaticFile | null>;
}

const ASSETS = 'assets';

export function createStaticFiles(root: string): StaticFiles {
  const base = path.resolve(root);
  const assets = new Map<string, Promise<StaticFile | null>>();
  const readAsset = (relative: string): Promise<StaticFile | null> => {
    const known = assets.get(relative);
    if (known) return known;
    const reading = readFileAt(path.join(base, relative), { immutable: true, shell: false });
    // A file that is not there (yet) is looked for again next time.
    void reading.then((file) => file ?? assets.delete(relative));
    assets.set(relative, reading);
    return reading;
  };
  void fs.readdir(path.join(base, ASSETS)).then(
    (names) => names.forEach((name) => void readAsset(`${ASSETS}/${name}`)),
    () => undefined,
  );
  return {
    read(urlPath) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(urlPath);
      } catch {
        return Promise.resolve(null);
      }
      if (decoded.includes('\0')) return Promise.resolve(null);
      const relative = path.posix.normalize(decoded).replace(/^\/+/, '');
      const isRoute = relative === '' || relative === '.' || path.posix.extname(relative) === '';
      const target = path.resolve(base, isRoute ? 'index.html' : relative);
      if (target !== base && !target.startsWith(base + path.sep)) return Promise.resolve(null);
      if (!isRoute && relative.startsWith(`${ASSETS}/`) && path.dirname(target) === path.join(base, ASSETS))
        return readAsset(relative);
      return readFileAt(target, { immutable: false, shell: isRoute });
    },
  };
}

async function readFileAt(
  target: string,
  { immutable, shell }: Pick<StaticFile, 'immutable' | 'shell'>,
): Promise<StaticFile | null> {
  try {
    const body = await fs.readFile(target);
    const contentType = MIME_TYPES[path.extname(target).toLowerCase()] ?? 'application/octet-stream';
    return { body, contentType, immutable, shell };
  } catch {
    return null;
  }
}
