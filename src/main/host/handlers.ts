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
  };
}
