/**
 * Child process for the kill -9 test: saves returns one after another, forever, and prints
 * "acked <n>" after each save has returned (the moment the master would reply to the minion).
 * argv: <cachedir>
 */
import { openJobCache } from '../../../../../src/core/master/job-cache';

async function main(): Promise<void> {
  const cache = await openJobCache({ cachedir: process.argv[2] });
  await cache.saveJob({
    jid: '20261202131309576618',
    tgt: '*',
    tgt_type: 'glob',
    fun: 'test.echo',
    arg: ['x'],
    user: 'root',
    minions: [],
    started: new Date(),
  });
  for (let n = 0; ; n++) {
    await cache.saveReturn({
      jid: '20261202131309576618',
      id: `minion-${n}`,
      fun: 'test.echo',
      fun_args: ['x'],
      return: { n, blob: 'x'.repeat(200) },
      retcode: 0,
      success: true,
      at: new Date(),
    });
    process.stdout.write(`acked ${n}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
