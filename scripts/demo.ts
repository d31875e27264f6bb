/**
 * `npm run demo`: a master and three minions on 127.0.0.1 in a throwaway folder, keys accepted
 * with salt-key, a few real jobs run and printed, then everything stopped and removed.
 */
import { Cluster, type RunResult } from './cluster';

function show(command: string, result: RunResult): void {
  process.stdout.write(`\n$ ${command}\n${result.stdout}${result.stderr}`);
  if (result.code !== 0) process.stdout.write(`[exit code ${result.code}]\n`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const cluster = await Cluster.create();
  let failed = false;
  const stop = async () => {
    await cluster.stop();
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  try {
    process.stdout.write(`brine demo in ${cluster.root}\n`);
    await cluster.startMaster();
    process.stdout.write(`salt-master listening on 127.0.0.1:${cluster.publishPort} (publish) and :${cluster.retPort} (requests)\n`);
    const minions = [
      { id: 'web1', grains: { role: 'web', roles: ['web', 'frontend'] } },
      { id: 'web2', grains: { role: 'web', roles: ['web'] } },
      { id: 'db1', grains: { role: 'db', roles: ['database'] } },
    ];
    await Promise.all(minions.map((m) => cluster.startMinion(m)));
    process.stdout.write('three minions started (web1, web2, db1), their keys are pending\n');
    show('salt-key -L', await cluster.saltKey('-L'));
    show('salt-key -A -y', await cluster.saltKey('-A', '-y'));
    await Promise.all(minions.map((m) => cluster.minions.get(m.id)!.waitFor('is ready')));
    const jobs: string[][] = [
      ['*', 'test.ping'],
      ['web*', 'test.echo', 'hello'],
      ['-L', 'web1,db1', 'cmd.run', 'uname -a'],
      ['-G', 'role:web', 'grains.item', 'role'],
    ];
    for (const args of jobs) {
      const result = await cluster.salt(...args);
      show(`salt ${args.map((a) => (/[\s*,]/.test(a) ? `'${a}'` : a)).join(' ')}`, result);
      if (result.code !== 0) failed = true;
    }
    show('salt-key -L', await cluster.saltKey('-L'));
  } finally {
    await stop();
  }
  process.stdout.write(`\nall stopped and removed after ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
