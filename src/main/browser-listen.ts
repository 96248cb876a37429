import { preferredPort, rememberPort } from './browser-port';

export interface ListenOptions<S> {
  dataDir: string;
  /** Tried first when the data folder kept no port. */
  fallback: number;
  /** `--port N`: used as given (0 = any free port), never kept. */
  given: number | undefined;
  start(port: number): Promise<S>;
  /** The port a started server listens on. */
  boundPort(server: S): number;
}

/**
 * Listens where browser mode listened last for this data folder (docs/user/browser-mode.md): the page keeps its
 * origin across restarts. When that port is taken, any free port, kept for the next start. A port given with
 * `--port` is taken as is; when it is in use, that is an error.
 */
export async function listenPreferred<S>(options: ListenOptions<S>): Promise<S> {
  if (options.given !== undefined) {
    try {
      return await options.start(options.given);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      throw new Error(`Port ${options.given} is in use. Choose another with --port N, or --port 0 for any free port.`, {
        cause: error,
      });
    }
  }
  const preferred = preferredPort(options.dataDir, options.fallback);
  let server: S;
  try {
    server = await options.start(preferred);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    server = await options.start(0);
  }
  const port = options.boundPort(server);
  if (port !== preferred || preferred === options.fallback) rememberPort(options.dataDir, port);
  return server;
}
