import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateKeyPair } from '../../../src/core/crypto/rsa';
import { KeyIndex, type KeyChanges } from '../../../src/core/master/key-index';
import { KEY_STATES, KeyStore, STATE_DIRS } from '../../../src/core/master/key-store';

const PEM = generateKeyPair(1024).publicPem;

let root: string;
let keys: KeyStore;
let index: KeyIndex;
let changes: KeyChanges[];

/** A key file in a state directory, as salt-key (another process) would leave it. */
function put(state: keyof typeof STATE_DIRS, id: string): void {
  writeFileSync(join(keys.pkiDir, STATE_DIRS[state], id), PEM);
}

/** Dates every key directory a minute back: their contents are then trusted until they change. */
function settle(): void {
  const old = new Date(Date.now() - 60_000);
  for (const state of KEY_STATES) utimesSync(join(keys.pkiDir, STATE_DIRS[state]), old, old);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'brine-keyindex-'));
  keys = new KeyStore({ pkiDir: join(root, 'pki') });
  keys.ensureLayout();
  changes = [];
  index = new KeyIndex(keys, (c) => changes.push(c));
});
afterEach(() => {
  index.close();
  rmSync(root, { recursive: true, force: true });
});

describe('KeyIndex', () => {
  it('loads the accepted keys without events; an unchanged fleet costs no directory read at a publish', () => {
    put('accepted', 'b');
    put('accepted', 'A');
    put('pending', 'p');
    settle();
    index.load();
    expect([...index.accepted]).toEqual(['A', 'b']);
    expect(index.pendingCount).toBe(1);
    const list = vi.spyOn(keys, 'list');
    index.refresh();
    index.refresh();
    expect(list).not.toHaveBeenCalled();
    expect(changes).toEqual([]);
  });

  it('reports accepted, rejected and deleted keys (not new pending ones) at the refresh before a publish', () => {
    put('accepted', 'a');
    put('accepted', 'b');
    put('pending', 'c');
    put('pending', 'd');
    settle();
    index.load();
    keys.accept(['c']);
    keys.reject(['d']);
    keys.delete(['b']);
    put('pending', 'e');
    index.refresh();
    expect(changes).toEqual([
      {
        events: [
          { id: 'c', act: 'accept', result: true },
          { id: 'd', act: 'reject', result: true },
          { id: 'b', act: 'delete', result: true },
        ],
        unaccepted: ['b'],
      },
    ]);
    expect([...index.accepted]).toEqual(['a', 'c']);
  });

  it('a key the master accepted itself is in the view at once, and unaccepted when it is gone from disk', () => {
    settle();
    index.load();
    put('accepted', 'auto');
    index.noteAccepted('auto');
    expect([...index.accepted]).toEqual(['auto']);
    keys.delete(['auto']);
    index.refresh();
    expect(changes.flatMap((c) => c.unaccepted)).toEqual(['auto']);
    expect([...index.accepted]).toEqual([]);
  });

  it('a directory read within moments of its change is read again at the next refresh', () => {
    index.load(); // the directories were just made: racy
    const list = vi.spyOn(keys, 'list');
    index.refresh();
    expect(list).toHaveBeenCalled();
  });

  it('the watch applies what salt-key changed, by name, without a publish', async () => {
    put('accepted', 'web1');
    put('accepted', 'web2');
    settle();
    index.load();
    const seen = new Promise<KeyChanges>((resolve) => {
      index = new KeyIndex(keys, resolve);
    });
    index.load();
    index.watch((dir, err) => {
      throw new Error(`${dir}: ${err.message}`);
    });
    keys.delete(['web2']);
    expect(await seen).toEqual({ events: [{ id: 'web2', act: 'delete', result: true }], unaccepted: ['web2'] });
    expect([...index.accepted]).toEqual(['web1']);
  });
});
