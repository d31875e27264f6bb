/**
 * Salt's terminal colours (salt/utils/color.py get_colors, salt/utils/textformat.py): each is an
 * SGR sequence that first resets (`\x1b[0;...m`), ENDC is `\x1b[0;0m`; without colour every one is
 * the empty string, so the same formatting code prints plain text.
 *
 *   const c = saltColors(true);  c.GREEN + 'ok' + c.ENDC   // '\x1b[0;32mok\x1b[0;0m'
 */
const CODES = {
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

export type ColorName = keyof typeof CODES;
export type Colors = Readonly<Record<ColorName, string>>;

const ON = Object.fromEntries(Object.entries(CODES).map(([k, v]) => [k, `\x1b[0;${v}m`])) as Colors;
const OFF = Object.fromEntries(Object.keys(CODES).map((k) => [k, ''])) as Colors;

/** Salt's get_colors(use): the sequences, or empty strings when `use` is false. */
export function saltColors(use: boolean | undefined): Colors {
  return use ? ON : OFF;
}

/**
 * Whether Salt's CLI colours its output (salt/output/__init__.py get_printout): --force-color
 * always, --no-color never, else only when stdout is a terminal.
 */
export function useColor(flags: { forceColor?: boolean; noColor?: boolean }, stdoutIsTty: boolean): boolean {
  if (flags.forceColor) return true;
  if (flags.noColor) return false;
  return stdoutIsTty;
}
