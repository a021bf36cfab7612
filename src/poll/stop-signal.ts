/**
 * A stop signal shared by everything a component has in flight. A large org has dozens
 * of requests waiting or running at once, each listening to it: Node's warning about
 * more than ten listeners on one signal would be a false alarm.
 */
import { setMaxListeners } from 'node:events';

/** An AbortController whose signal takes any number of listeners. */
export function stopController(): AbortController {
  const ctrl = new AbortController();
  setMaxListeners(0, ctrl.signal);
  return ctrl;
}
