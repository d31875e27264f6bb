/**
 * Salt's parsing of `traceroute` output (salt/modules/network.py traceroute): the version line
 * picks the form, each hop line becomes a dict ({} when it cannot be read, as Salt appends).
 */

/** `traceroute --version` as Salt reads it: [major, minor, patch], numbers where they are numbers. */
export function tracerouteVersion(text: string): Array<number | string> {
  const m = /.*[Vv]ersion (\d+)\.([\w+]+)\.*(\w*)/.exec(text);
  if (!m) return [0, 0, 0];
  const parts: Array<number | string> = [m[1], m[2], m[3]].map((t) => (/^-?\d+$/.test(t) ? Number(t) : t));
  return parts;
}

const num = (v: number | string): number => (typeof v === 'number' ? v : NaN);

/** Python's float() of a traceroute delay ('0.123'). */
function float(text: string | undefined): number {
  const v = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(v)) throw new Error(`not a number: ${text}`);
  return v;
}

export function parseTraceroute(out: string, version: Array<number | string>, kernel: string): Array<Record<string, unknown>> {
  const ret: Array<Record<string, unknown>> = [];
  const bsdLike = String(version[1]).includes('Darwin') || String(version[1]).includes('FreeBSD') || ['SunOS', 'AIX'].includes(kernel);
  const modern = (num(version[0]) >= 2 && num(version[2]) >= 14) || (num(version[0]) >= 2 && num(version[1]) > 0);
  for (const line of out.split(/\r?\n/)) {
    if (!line.includes(' ') || line.startsWith('traceroute')) continue;
    let result: Record<string, unknown> = {};
    if (bsdLike) {
      const m = /\s*(\d*)\s+(.*)\s+\((.*)\)\s+(.*)$/.exec(line);
      const star = /\s*(\d*)\s+(\*\s+\*\s+\*)/.exec(line);
      if (m) {
        result = { count: m[1], hostname: m[2], ip: m[3] };
        [
          ...m
            .slice(1)
            .join(' ')
            .matchAll(/(\d+\.\d+)\s*ms/g),
        ].forEach((d, i) => (result[`ms${i + 1}`] = d[1]));
      } else if (star) result = { count: star[1], hostname: '*' };
    } else if (modern) {
      const comps = line.split('  ');
      try {
        if (comps.length >= 2 && comps[1] === '* * *') result = { count: Math.trunc(float(comps[0])), hostname: '*' };
        else if (comps.length >= 5) {
          const [hostname, ip] = comps[1].split(/\s+/);
          result = {
            count: Math.trunc(float(comps[0])),
            hostname,
            ip: (ip ?? '').replace(/^[()]+|[()]+$/g, ''),
            ms1: float(comps[2].split(/\s+/)[0]),
            ms2: float(comps[3].split(/\s+/)[0]),
            ms3: float(comps[4].split(/\s+/)[0]),
          };
        }
      } catch {
        // Salt raises here (int()/float() of a field it did not expect); brine keeps the line as {}.
        result = {};
      }
    } else {
      const comps = line.trim().split(/\s+/);
      if (comps.length >= 9) {
        result = {
          count: comps[0],
          hostname: comps[1],
          ip: comps[2],
          ms1: comps[4],
          ms2: comps[6],
          ms3: comps[8],
          ping1: comps[3],
          ping2: comps[5],
          ping3: comps[7],
        };
      }
    }
    ret.push(result);
  }
  return ret;
}
