/**
 * `npm run demo`: a master and three minions on 127.0.0.1 in a throwaway folder, keys accepted
 * with salt-key, a few real jobs run and printed, the state tree of examples/state-tree applied
 * (dry run, real run, re-run with nothing to change), then everything stopped and removed.
 */
import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster, REPO, type RunResult } from './cluster';

/** examples/state-tree as the master's file_roots and pillar_roots, its files written under the demo's root. */
function serveStateTree(cluster: Cluster): string {
  const srv = join(cluster.root, 'srv');
  cpSync(join(REPO, 'examples', 'state-tree'), srv, { recursive: true });
  const site = join(srv, 'pillar', 'site.sls');
  const www = join(cluster.root, 'www');
  writeFileSync(site, readFileSync(site, 'utf8').replace('www_root: /srv/www', `www_root: ${www}`));
  appendFileSync(
    join(cluster.masterDir, 'master'),
    `file_roots:\n  base:\n    - ${join(srv, 'salt')}\npillar_roots:\n  base:\n    - ${join(srv, 'pillar')}\n`,
  );
  return www;
}

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
    const www = serveStateTree(cluster);
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

    process.stdout.write(
      `\nStates: examples/state-tree (a web server's config from pillar, a command run on change), files under ${www}\n`,
    );
    const states: [string[], number][] = [
      [['web1', 'state.apply', 'test=True', '--state-output=terse'], 0],
      [['*', 'state.apply'], 0],
      [['*', 'state.apply', '--state-output=terse'], 0],
    ];
    for (const [args, code] of states) {
      const result = await cluster.salt(...args, '--no-color');
      show(`salt ${args.map((a) => (/[\s*,]/.test(a) ? `'${a}'` : a)).join(' ')}`, result);
      if (result.code !== code) failed = true;
    }
    const conf = join(www, 'web1', 'site.conf');
    process.stdout.write(`\n$ cat ${conf}\n${readFileSync(conf, 'utf8')}`);
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
