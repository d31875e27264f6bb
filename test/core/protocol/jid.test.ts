import { describe, expect, it } from 'vitest';
import { JidFactory, formatJid, isJid, jidToDate } from '../../../src/core/protocol/jid';
import { ProtocolError } from '../../../src/core/errors';
import { allMessages } from './wire-vectors';

describe('jid', () => {
  it('formats UTC YYYYMMDDhhmmssffffff', () => {
    const f = new JidFactory();
    expect(f.next(new Date(Date.UTC(2002, 11, 25, 12, 0, 0)))).toBe('20021225120000000000');
    expect(new JidFactory().next(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe('20260102030405678000');
    expect(formatJid(Date.UTC(2026, 11, 2, 12, 56, 22) * 1000 + 684790)).toBe('20261202125622684790');
  });

  it('stays unique and increasing for many jobs in the same microsecond', () => {
    const f = new JidFactory();
    const at = new Date(Date.UTC(2026, 11, 2, 12, 0, 0, 999));
    const jids = Array.from({ length: 5000 }, () => f.next(at));
    expect(new Set(jids).size).toBe(5000);
    expect([...jids].sort()).toEqual(jids);
    expect(jids[0]).toBe('20261202120000999000');
    expect(jids[1]).toBe('20261202120000999001');
    // 1000 bumps carry into the next second correctly.
    expect(jids[1001]).toBe('20261202120001000001');
    expect(jids.every(isJid)).toBe(true);
  });

  it('never goes backwards when the clock does', () => {
    const f = new JidFactory();
    const a = f.next(new Date(Date.UTC(2026, 0, 1, 0, 0, 1)));
    const b = f.next(new Date(Date.UTC(2026, 0, 1, 0, 0, 0)));
    expect(b > a).toBe(true);
  });

  it('recognises the captured jids and rejects malformed ones', () => {
    const captured = allMessages()
      .map((m) => m.decrypted?.jid ?? m.reply?.load?.jid)
      .filter((j): j is string => typeof j === 'string' && j !== 'req');
    expect(captured.length).toBeGreaterThan(10);
    for (const j of captured) expect(isJid(j), j).toBe(true);
    for (const bad of [
      '',
      'req',
      '2026120212562268479',
      '202612021256226847901',
      '20261302125622684790',
      '2026120212562268479x',
      20261202125622684790,
    ]) {
      expect(isJid(bad), String(bad)).toBe(false);
    }
  });

  it('accepts exactly the strings that name a real UTC moment (checked against Date, every day of leap and common years)', () => {
    const viaDate = (s: string): boolean => {
      const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{6})$/.exec(s);
      if (!m) return false;
      const [, y, mo, d, h, mi, sec] = m.map(Number);
      const date = new Date(Date.UTC(y, mo - 1, d, h, mi, sec));
      return (
        date.getUTCFullYear() === y &&
        date.getUTCMonth() === mo - 1 &&
        date.getUTCDate() === d &&
        date.getUTCHours() === h &&
        date.getUTCMinutes() === mi &&
        date.getUTCSeconds() === sec
      );
    };
    const two = (n: number) => String(n).padStart(2, '0');
    let checked = 0;
    for (const year of ['0050', '0099', '0100', '1900', '2000', '2023', '2024', '2100', '9999']) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          for (const time of ['000000', '235959', '240000', '236000', '235960']) {
            const jid = `${year}${two(month)}${two(day)}${time}123456`;
            expect(isJid(jid), jid).toBe(viaDate(jid));
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(9 * 14 * 33 * 5);
    for (const odd of ['２０２６1202125622684790', '2026120212562268479 ', '-2026120212562268479', '2026-202125622684790']) {
      expect(isJid(odd), odd).toBe(false);
    }
  });

  it('converts a jid back to its moment', () => {
    expect(jidToDate('20021225120000123456').toISOString()).toBe('2002-12-25T12:00:00.123Z');
    expect(() => jidToDate('nope')).toThrow(ProtocolError);
    try {
      jidToDate('nope');
    } catch (e) {
      expect((e as ProtocolError).code).toBe('BAD_JID');
    }
  });
});
