import type { Services } from '../services';
import type { MethodHandlers } from './dispatcher';

/** The contract's methods, each bound to the service that answers it. Translation only: no logic here. */
export function createHandlers(services: Services): MethodHandlers {
  return {
    'app.info': () => services.appInfo(),
    'chat.create': (input) => services.chats.create(input?.title),
    'chat.list': () => ({ chats: services.chats.list() }),
    'chat.get': ({ id }) => services.chats.get(id),
    'chat.rename': ({ id, title }) => services.chats.rename(id, title),
    'chat.delete': ({ id }) => {
      services.chats.delete(id);
      return { id };
    },
    'audit.query': (query) => services.audit.query(query),
    'audit.export': (request) =>
      services.audit.export({
        ...request,
        onProgress: (done, total) => services.events.emit('audit.onDidProgress', { operation: 'export', done, total }),
      }),
    'audit.verify': (request) =>
      services.audit.verify({
        anchor: request?.anchor,
        onProgress: (done, total) => services.events.emit('audit.onDidProgress', { operation: 'verify', done, total }),
      }),
  };
}
