/**
 * Salt's terminal colours (salt/utils/color.py get_colors over salt/utils/textformat.py): every
 * sequence starts with a reset (`\x1b[0;...m`), ENDC is `\x1b[0;0m`. With colour off every entry
 * is '' and the outputters print exactly their plain text.
 */
const SEQUENCES = {
  BLACK: '30',
  DARK_GRAY: '1;30',
  RED: '31',
  LIGHT_RED: '1;31',
  GREEN: '32',
  LIGHT_GREEN: '1;32',
  YELLOW: '33',
  LIGHT_YELLOW: '1;33',
  BLUE: '34',
  LIGHT_BLUE: '1;34',
  MAGENTA: '35',
  LIGHT_MAGENTA: '1;35',
  CYAN: '36',
  LIGHT_CYAN: '1;36',
  LIGHT_GRAY: '37',
  WHITE: '1;37',
  DEFAULT_COLOR: '39',
  ENDC: '0',
} as const;

export type Colors = Record<keyof typeof SEQUENCES, string>;

/** Salt's colours when `use`, else every name mapped to ''. */
export function getColors(use: boolean): Colors {
  return Object.fromEntries(Object.entries(SEQUENCES).map(([name, code]) => [name, use ? `\x1b[0;${code}m` : ''])) as Colors;
}

/** Every colour off: what the outputters use unless told otherwise. */
export const NO_COLORS: Colors = getColors(false);

/**
 * Whether a CLI prints in colour, as Salt's get_printout decides: --force-color wins, then
 * --no-color, then colour only when stdout is a terminal (a pipe or a file gets none).
 */
export function useColor(flags: { 'force-color'?: boolean; 'no-color'?: boolean }, stdoutIsTty: boolean): boolean {
  if (flags['force-color']) return true;
  if (flags['no-color']) return false;
  return stdoutIsTty;
}
