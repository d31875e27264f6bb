import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogging, formatFileLine, formatMessage, levelNumber, logField, RepeatedWarning } from '../../../src/core/log';

const SAMPLES = path.resolve(__dirname, '../../../..', 'shared/salt-wire/cli-output-samples.md');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-log-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function captureStderr() {
  const lines: string[] = [];
  return { lines, stream: { write: (t: string) => lines.push(t) } };
}

describe('file layout matches Salt 3007 minion logs', () => {
  // Every log line captured from Salt, rebuilt from its parts.
  const text = fs.readFileSync(SAMPLES, 'utf8');
  const re =
    /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) \[(\S+)\s*:(\d+)\s*\]\[(\w+)\s*\]\[(\d+)\] (.*(?:\n(?!\d{4}-|```).*)*)$/gm;
  const samples = [...text.matchAll(re)];

  it('finds the captured lines', () => {
    expect(samples.length).toBeGreaterThanOrEqual(3);
  });

  it.each(samples.map((m) => [m[0].split('\n')[0].slice(0, 60), m] as const))('%s', (_title, m) => {
    const time = new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]);
    const line = formatFileLine({ time, name: m[8], lineno: +m[9], levelName: m[10], pid: +m[11], message: m[12] });
    expect(line).toBe(m[0]);
  });
});

describe('createLogging', () => {
  it('writes console lines at log_level and file lines at log_level_logfile', async () => {
    const err = captureStderr();
    const file = path.join(dir, 'var/log/salt/minion');
    const logging = createLogging({ level: 'warning', logFile: file, logFileLevel: 'debug', console: true, stderr: err.stream });
    const log = logging.getLogger('salt.crypt', 861);
    log.info('Waiting %s seconds before retry.', 10);
    log.error("The Salt Master has rejected this minion's public key!\nTo repair this issue, restart.");
    log.trace('not shown anywhere');
    await logging.close();
    expect(err.lines).toEqual(["[ERROR   ] The Salt Master has rejected this minion's public key!\nTo repair this issue, restart.\n"]);
    const lines = fs.readFileSync(file, 'utf8');
    expect(lines).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} \\[salt\\.crypt {33}:861 \\]\\[INFO    \\]\\[${process.pid}\\] Waiting 10 seconds before retry\\.\\n` +
          `\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} \\[salt\\.crypt {33}:861 \\]\\[ERROR   \\]\\[${process.pid}\\] The Salt Master has rejected this minion's public key!\\nTo repair this issue, restart\\.\\n$`,
      ),
    );
  });

  it('appends to an existing file and keeps every line written before close', async () => {
    const file = path.join(dir, 'master.log');
    fs.writeFileSync(file, 'old line\n');
    const logging = createLogging({ level: 'quiet', logFile: file, logFileLevel: 'info', console: false });
    const log = logging.getLogger('salt.master');
    for (let i = 0; i < 100; i++) log.info('line %d', i);
    await logging.close();
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('old line');
    expect(lines).toHaveLength(101);
    expect(lines[100]).toMatch(/\] line 99$/);
  });

  it('answers isEnabled from the lower of the two levels, and names children', () => {
    const logging = createLogging({ level: 'info', console: true, stderr: captureStderr().stream });
    const log = logging.getLogger('salt');
    expect(log.isEnabled('info')).toBe(true);
    expect(log.isEnabled('debug')).toBe(false);
    expect(log.child('minion').name).toBe('salt.minion');
  });

  it('quiet silences the console', () => {
    const err = captureStderr();
    const logging = createLogging({ level: 'quiet', console: true, stderr: err.stream });
    logging.getLogger('salt').critical('boom');
    expect(err.lines).toEqual([]);
  });

  it('refuses an unknown level, a syslog address and an unwritable file with typed errors', () => {
    expect(() => createLogging({ level: 'loud', console: true })).toThrow(expect.objectContaining({ code: 'BAD_LOG_LEVEL' }));
    expect(() => createLogging({ level: 'info', console: false, logFile: 'udp://host:514' })).toThrow(
      expect.objectContaining({ code: 'BAD_LOG_FILE' }),
    );
    fs.writeFileSync(path.join(dir, 'file'), '');
    expect(() => createLogging({ level: 'info', console: false, logFile: path.join(dir, 'file/sub/log') })).toThrow(
      expect.objectContaining({ code: 'BAD_LOG_FILE' }),
    );
  });
});

describe('formatMessage and levels', () => {
  it('substitutes like Python %-formatting and keeps extra arguments', () => {
    expect(formatMessage('%s has %d keys, %r %%', ['web1', 3.7, 'x'])).toBe("web1 has 3 keys, 'x' %");
    expect(formatMessage('no placeholders', [new Error('boom'), { a: 1 }])).toBe('no placeholders boom {"a":1}');
    expect(formatMessage('100%', [])).toBe('100%');
  });

  it('accepts level names in any case', () => {
    expect(levelNumber('DEBUG')).toBe(10);
    expect(levelNumber('garbage')).toBe(1);
  });
});

describe('untrusted text in logs', () => {
  it('escapes control and bidi characters in every message, keeping newlines', async () => {
    const err = captureStderr();
    const logging = createLogging({ level: 'info', console: true, stderr: err.stream });
    logging.getLogger('salt.master').warning('from evil\u001b[2J\r\b\u202e!\nsecond line');
    await logging.close();
    expect(err.lines).toEqual(['[WARNING ] from evil\\x1b[2J\\r\\x08\\u202e!\nsecond line\n']);
  });

  it('logField escapes newlines too and cuts long values, saying how long they were', () => {
    expect(logField('a\nb')).toBe('a\\nb');
    expect(logField('x'.repeat(1000), 10)).toBe('xxxxxxxxxx... (1000 characters)');
    expect(logField(Buffer.alloc(5))).toBe('<5 bytes>');
    expect(logField(2n ** 64n)).toBe('18446744073709551616');
  });

  it('cuts a whole message past 64 kB', async () => {
    const err = captureStderr();
    const logging = createLogging({ level: 'info', console: true, stderr: err.stream });
    logging.getLogger('salt.master').info(`id ${'y'.repeat(1_000_000)}`);
    await logging.close();
    expect(err.lines[0].length).toBeLessThan(70_000);
    expect(err.lines[0]).toMatch(/\.\.\. \(message cut, 1000003 characters\)\n$/);
  });
});

describe('RepeatedWarning', () => {
  it('tells the first event at once, then one line per interval with the count since the last', () => {
    const { lines, stream } = captureStderr();
    const log = createLogging({ level: 'warning', console: true, stderr: stream }).getLogger('salt.minion');
    let now = 1_000_000;
    const dropped = new RepeatedWarning(log, 60_000, () => now);
    for (let i = 0; i < 500; i++) dropped.note((n) => `Dropped ${n}`);
    now += 60_000;
    dropped.note((n) => `Dropped ${n}`);
    expect(lines.map((l) => l.trim())).toEqual(['[WARNING ] Dropped 1', '[WARNING ] Dropped 500']);
  });
});
