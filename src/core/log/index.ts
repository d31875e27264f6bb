export {
  createLogging,
  loggingLayout,
  DEFAULT_CONSOLE_FORMAT,
  DEFAULT_FILE_FORMAT,
  type Logger,
  type Logging,
  type LoggingOptions,
} from './logging';
export { RepeatedWarning } from './repeated-warning';
export { LEVELS, levelNumber, isLevelName, type LevelName } from './levels';
export {
  formatConsoleLine,
  formatFileLine,
  formatMessage,
  escapeLogMessage,
  logField,
  DEFAULT_NAME_WIDTH,
  LOG_FIELD_CHARS,
  MAX_LOG_MESSAGE,
  type LogRecord,
} from './format';
