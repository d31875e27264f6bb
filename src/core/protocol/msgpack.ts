/**
 * Salt's msgpack dialect (`use_bin_type=False`): text and bytes share the raw-string family.
 * See msgpack-encode.ts and msgpack-decode.ts for why this is hand-written rather than msgpackr.
 */
export { encode, MAX_DEPTH } from './msgpack-encode';
export { decode, toBytes, valueEnd } from './msgpack-decode';
