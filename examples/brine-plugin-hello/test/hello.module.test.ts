import { describe, expect, it } from 'vitest';
import { createHarness, fakeShell } from 'brine/testing';
import { HelloModule } from '../src/hello.module';

describe('hello module', () => {
  it('answers hello.world and hello.greet', async () => {
    const h = await createHarness({ modules: [HelloModule], grains: { kernel: 'Linux', id: 'web1' } });
    expect(await h.call('hello.world')).toEqual({ return: 'hello world from web1', retcode: 0, success: true });
    expect((await h.call('hello.greet', ['bob'], { punctuation: '?' })).return).toBe('hello bob?');
    expect((await h.call('hello.greet', [''])).return).toBe("ERROR executing 'hello.greet': name must not be empty");
  });

  it('runs uptime through the shell service and reports failures', async () => {
    const ok = await createHarness({
      modules: [HelloModule],
      grains: { kernel: 'Linux' },
      shell: fakeShell(() => ({ stdout: ' 10:00 up 1 day\n' })),
    });
    expect((await ok.call('hello.uptime')).return).toBe('10:00 up 1 day');
    const bad = await createHarness({ modules: [HelloModule], grains: { kernel: 'Linux' }, shell: fakeShell(() => ({ retcode: 127 })) });
    expect(await bad.call('hello.uptime')).toMatchObject({ return: 'ERROR: uptime failed with exit code 127', retcode: 1 });
  });

  it('is unavailable on Windows, with the reason', async () => {
    const h = await createHarness({ modules: [HelloModule], grains: { kernel: 'Windows' } });
    expect((await h.call('hello.world')).return).toBe("'hello' __virtual__ returned False: hello needs a POSIX kernel (Linux or Darwin)");
  });
});
