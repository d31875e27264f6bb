/**
 * A vitest setup file: when vitest ends a test file's worker (SIGTERM, once the file is done or its
 * clean-up hook has timed out), the daemons that file started and did not stop are killed first.
 * Without it they outlived the worker: a Salt minion kept signing in to whatever later bound its
 * master's port, and a later file's master found a second key for one of its ids.
 */
import { killRunningDaemons } from '../../scripts/cluster';

process.once('SIGTERM', () => {
  killRunningDaemons();
  process.exit(143);
});
