/** The built-in plugins (plugins/test, plugins/cmd, plugins/grains), for hosts that load them. */
export { BUILTIN_PLUGINS } from '../../plugins';
