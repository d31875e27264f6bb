export { createLogging, type Logger, type Logging, type LoggingOptions } from './logging';
export { LEVELS, levelNumber, isLevelName, type LevelName } from './levels';
export { formatConsoleLine, formatFileLine, formatMessage, DEFAULT_NAME_WIDTH, type LogRecord } from './format';
