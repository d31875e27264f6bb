/**
 * The clear request, all a client beside a master sends (the CLI's publish, a runner or wheel
 * call, a ping): no key and no crypto, so those commands never load node:crypto for it.
 */
import { ProtocolError } from '../errors';
import { encode } from '../protocol/msgpack';
import { isObj, type Obj } from '../protocol/loads';

/** Request envelope version Salt 3007 sends and expects. */
export const REQUEST_VERSION = 3;

/** `{enc: 'clear', load, version: 3}` (the CLI's publish, `_auth` has its own builder). */
export function buildClearRequest(load: Obj): Buffer {
  if (!isObj(load)) throw new ProtocolError('BAD_LOAD', 'clear request: load must be a map');
  return encode({ enc: 'clear', load, version: REQUEST_VERSION });
}
