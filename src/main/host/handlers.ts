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
    'providers.list': () => ({ providers: services.providers.list() }),
    'providers.add': (input) => services.providers.add(input),
    'providers.update': (input) => services.providers.update(input),
    'providers.remove': ({ id }) => {
      services.providers.remove(id);
      return { id };
    },
    'providers.test': ({ id }) => services.providers.test(id),
    'providers.models': async ({ id }) => ({ models: await services.providers.models(id) }),
  };
}
