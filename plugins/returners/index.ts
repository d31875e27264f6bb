export { LocalCacheReturner } from './local-cache.returner';
export { SyslogReturner } from './syslog.returner';
export { PgjsonbReturner } from './pgjsonb.returner';
export { PostgresReturner } from './postgres.returner';
