/**
 * SaltGUI (../shared/saltgui, unchanged) served by brine's salt-api and driven in a real headless
 * Chromium (Debian's package, through playwright-core; no browser download): log in with a
 * file-eauth user, see the minions with their OS from grains, run test.ping and cmd.run from the
 * command box, open a job, accept a pending key, and watch events arrive. Any error SaltGUI
 * shows fails the test. Screenshots of each page go to test-results/saltgui/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { generateKeyPair } from '../../src/core/crypto/rsa';
import { ApiCluster } from '../support/api-cluster';
import { REPO } from '../support/cluster';

const CHROMIUM = process.env.BRINE_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(REPO, 'test-results', 'saltgui');
const haveBrowser = existsSync(CHROMIUM);
/** Files SaltGUI asks for and treats a 404 of as "not configured" (saltgui-calls.md). */
const OPTIONAL_FILES = ['/static/salt-motd.txt', '/static/salt-motd.html', '/static/minions.txt'];
if (!haveBrowser && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);

describe.skipIf(!haveBrowser)('SaltGUI in Chromium against brine', () => {
  let env: ApiCluster;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    env = await ApiCluster.create();
    // Offer the file eauth first on the login page, as the capture's salt-auth.txt did.
    writeFileSync(join(env.cluster.root, 'saltgui', 'static', 'salt-auth.txt'), 'file\n');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
    page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      if (res.status() >= 400 && !OPTIONAL_FILES.includes(path))
        errors.push(`${res.status()} from ${res.request().method()} ${path}: ${res.request().postData() ?? ''}`);
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await env?.stop();
  });

  it('logs in with a file-eauth user', async () => {
    await page.goto(`${env.url}/`);
    await page.fill('#username', 'apiuser');
    await page.fill('#password', 'apipass');
    await page.selectOption('select', 'file');
    await shot('01-login');
    await page.click('#login-button');
    await page.waitForURL(/minions/, { timeout: 20_000 });
  }, 60_000);

  it('shows the minions with the OS their grains report', async () => {
    for (const id of ['web1', 'db1']) {
      const row = page.locator('tr', { hasText: id }).first();
      await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('Debian');
    }
    await shot('02-minions');
  }, 60_000);

  /** Runs a command in the command box and answers the output SaltGUI shows. */
  const run = async (target: string, command: string, name: string): Promise<string> => {
    await page.click('#button-manual-run');
    await page.fill('#target', target);
    await page.fill('#command', command);
    await page.click('#run-command');
    const output = page.locator('#popup-output');
    // SaltGUI shows "Waiting for command...", then "loading…" until the answer is in.
    await expect.poll(() => output.textContent(), { timeout: 30_000 }).not.toMatch(/waiting for command|loading/i);
    await shot(name);
    const text = (await output.textContent()) ?? '';
    await page.click('#cmd-close-button');
    return text;
  };

  it('runs test.ping from the command box', async () => {
    const out = await run('*', 'test.ping', '03-cmd-test-ping');
    expect(out).toContain('web1');
    expect(out).toContain('db1');
    expect(out).toContain('true');
  }, 60_000);

  it('runs cmd.run from the command box', async () => {
    const out = await run('web1', 'cmd.run "echo hello-from-saltgui"', '04-cmd-run');
    expect(out).toContain('hello-from-saltgui');
  }, 60_000);

  it('opens a job from the jobs page', async () => {
    await page.click('#button-jobs1');
    await page.waitForURL(/jobs/);
    const job = page.locator('tr:visible', { hasText: 'test.ping' }).first();
    await expect.poll(() => job.count(), { timeout: 20_000 }).toBe(1);
    await shot('05-jobs');
    // The row's own click handler (its "(click)" cell has another one).
    await job.locator('td', { hasText: 'test.ping' }).first().dispatchEvent('click');
    await expect.poll(() => page.url(), { timeout: 20_000 }).toMatch(/[?&]id=\d{20}.*#job$/);
    await expect.poll(() => page.textContent('body'), { timeout: 20_000 }).toContain('web1');
    await shot('06-job');
  }, 60_000);

  it('accepts a pending key on the keys page', async () => {
    writeFileSync(join(env.pkiDir, 'minions_pre', 'newbie'), generateKeyPair(1024).publicPem);
    await page.click('#button-keys1');
    await page.waitForURL(/keys/);
    const row = page.locator('tr', { hasText: 'newbie' }).first();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('unaccepted');
    await shot('07-keys-pending');
    await row.locator('.menu-dropdown').first().click();
    await row.locator('text=Accept key').first().click();
    // SaltGUI fills the command box with wheel.key.accept for that key; the user runs it.
    await expect.poll(() => page.inputValue('#command')).toContain('wheel.key.accept');
    await page.click('#run-command');
    await expect.poll(() => page.textContent('#popup-output'), { timeout: 20_000 }).toContain('newbie');
    await page.click('#cmd-close-button');
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toMatch(/newbie\s*accepted/);
    await shot('08-keys-accepted');
    expect((await env.cluster.saltKey('-L')).stdout).toMatch(/Accepted Keys:[\s\S]*newbie[\s\S]*Denied Keys/);
  }, 60_000);

  it('shows events as they arrive on the events page', async () => {
    await page.click('#button-events1');
    await page.waitForURL(/events/);
    // The events page starts paused: press play.
    await page.locator('.small-button-for-click:visible', { hasText: '\u2BC8' }).first().click();
    await shot('09-events-empty');
    const res = await env.cluster.salt('web1', 'test.echo', 'event-seen', '--show-jid');
    const jid = /(\d{20})/.exec(res.stdout)?.[1];
    expect(jid).toBeDefined();
    await shot('10-events-after');
    await expect.poll(() => page.textContent('body'), { timeout: 20_000 }).toContain(`salt/job/${jid}/ret/web1`);
    await shot('10-events');
  }, 60_000);

  it('showed no error on any page', () => {
    expect(errors).toEqual([]);
  });
});
