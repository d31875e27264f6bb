/**
 * `node dist/bench/auth-storm.js [N]` (after `npm run build`): the master's side of a sign-in
 * storm, in process. N new minions (auto_accept) send `_auth` at once to the real AuthService;
 * measured with the RSA work inline on the main thread and on libuv's thread pool (as the master runs it).
 * "main thread CPU" is what publishing and return handling would have had to wait behind; "all
 * threads" adds the thread pool's (/proc/self/task).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuSeconds, mainThreadCpuSeconds } from './procfs';
import { randomBytes } from 'node:crypto';
import { buildAuthRequest, openAuthRequest } from '../src/core/channel';
import { privateKeyFromPem, publicPemOf } from '../src/core/crypto/rsa';
import { createLogging } from '../src/core/log';
import { AuthService } from '../src/core/master/auth';
import { SigningFile } from '../src/core/master/signing-file';
import { MasterEvents } from '../src/core/master/events';
import { KeyStore } from '../src/core/master/key-store';
import { PublishKey } from '../src/core/master/publish-key';
import { inlineKeyOps, masterRsa, threadPoolKeyOps, type MasterRsa } from '../src/core/master/master-rsa';
import { Sessions } from '../src/core/master/sessions';
import { ensureKeyCache, keyCacheDir } from './keys';
import { readFileSync } from 'node:fs';
import { fmtMs, table } from './report';
import { zeromqTransport } from '../src/core/transport/zeromq';

interface StormResult {
  mode: string;
  round: string;
  wallMs: number;
  mainMs: number;
  allMs: number;
  perSignInMs: number;
}

/**
 * Two rounds on one master: N new minions (key written, auto-accepted), then the same N signing in
 * again with a token, as after a master restart (keys known; token decrypt + signature).
 */
async function storm(mode: string, n: number, pems: string[], makeRsa: (masterPem: string) => Promise<MasterRsa>): Promise<StormResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'brine-auth-storm-'));
  const keys = new KeyStore({ pkiDir: join(root, 'pki') });
  const masterPem = keys.ensureMasterKeys(2048).privatePem;
  const masterKey = privateKeyFromPem(masterPem);
  const events = new MasterEvents(zeromqTransport);
  await events.open(root);
  const rsa = await makeRsa(masterPem);
  const log = createLogging({ level: 'warning', console: false }).getLogger('salt.master');
  const auth = new AuthService({
    keys,
    masterKey,
    rsa,
    publishKey: new PublishKey(masterKey),
    sessions: new Sessions(),
    events,
    log,
    policy: { autoAccept: true, autosign: new SigningFile(undefined), openMode: false, publishPort: 4505 },
  });
  const round = async (name: string, withToken: boolean): Promise<StormResult> => {
    const requests = pems.slice(0, n).map(
      (pem, i) =>
        openAuthRequest(
          buildAuthRequest({
            id: `storm-${i}`,
            publicPem: publicPemOf(pem),
            ...(withToken ? { masterPublicKey: masterKey, token: randomBytes(57).toString('base64') } : {}),
          }).bytes,
        ).request,
    );
    const main0 = mainThreadCpuSeconds(process.pid);
    const all0 = cpuSeconds(process.pid);
    const t0 = performance.now();
    await Promise.all(requests.map((r) => auth.handle(r)));
    const wallMs = performance.now() - t0;
    const mainMs = (mainThreadCpuSeconds(process.pid) - main0) * 1000;
    const allMs = (cpuSeconds(process.pid) - all0) * 1000;
    return { mode, round: name, wallMs, mainMs, allMs, perSignInMs: mainMs / n };
  };
  try {
    return [await round('new keys, auto_accept', false), await round('known keys, with token', true)];
  } finally {
    await events.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 1000);
  await ensureKeyCache(n, 2048);
  const dir = keyCacheDir(2048);
  const pems = Array.from({ length: n }, (_, i) => readFileSync(join(dir, `${i}.pem`), 'utf8'));
  const rows: StormResult[] = [];
  rows.push(...(await storm('inline (main thread)', n, pems, async (pem) => masterRsa(inlineKeyOps(privateKeyFromPem(pem))))));
  rows.push(
    ...(await storm('libuv thread pool', n, pems, async (pem) =>
      masterRsa(await threadPoolKeyOps(privateKeyFromPem(pem), availableParallelism())),
    )),
  );
  process.stdout.write(`\nMaster sign-in storm: ${n} minions at once (ms)\n\n`);
  process.stdout.write(
    table(
      ['RSA', 'sign-ins', 'wall', 'main thread CPU', 'all threads CPU', 'main thread per sign-in'],
      rows.map((r) => [r.mode, r.round, fmtMs(r.wallMs), fmtMs(r.mainMs), fmtMs(r.allMs), r.perSignInMs.toFixed(3)]),
    ),
  );
}

main().catch((err) => {
  process.stderr.write(`auth-storm failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
