/**
 * The tar archive `POST /keys` answers with, as rest_cherrypy builds it: `minion.pub` and
 * `minion.pem` of a freshly generated, already accepted key pair.
 */
import { pack } from 'tar-stream';

export async function keysTarball(publicPem: string, privatePem: string): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    tar.on('data', (c: unknown) => chunks.push(c as Buffer));
    tar.on('end', () => resolve(Buffer.concat(chunks)));
    tar.on('error', reject);
  });
  // Salt's tarfile entries: mode 0644, owner 0, mtime 0.
  tar.entry({ name: 'minion.pub', mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }, publicPem);
  tar.entry({ name: 'minion.pem', mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }, privatePem);
  tar.finalize();
  return done;
}
