import { describe, expect, it } from 'vitest';
import { HostGuard } from '../../src/http/host-guard.js';

/** The web UI's and /mcp's Origin check compares scheme, host and port (DNS rebinding, CSRF). */
const guard = new HostGuard(HostGuard.defaults());

async function verdict(url: string, headers: Record<string, string>): Promise<string> {
  try {
    await guard.check(new Request(url, { method: 'POST', headers }));
    return 'ok';
  } catch (error) {
    return (error as { token: string }).token;
  }
}

describe('HostGuard origin check', () => {
  it('accepts the server’s own origin, with or without a default port, and no Origin at all', async () => {
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'http://127.0.0.1:7420' })).toBe('ok');
    expect(await verdict('http://localhost/x', { host: 'localhost', origin: 'http://localhost:80' })).toBe('ok');
    expect(await verdict('https://localhost/x', { host: 'localhost:443', origin: 'https://localhost' })).toBe('ok');
    expect(await verdict('http://[::1]:7420/x', { host: '[::1]:7420', origin: 'http://[::1]:7420' })).toBe('ok');
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420' })).toBe('ok');
  });

  it('refuses another port, another scheme or another allowed host', async () => {
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'http://127.0.0.1:9999' })).toBe('origin-not-allowed');
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'http://127.0.0.1' })).toBe('origin-not-allowed');
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'https://127.0.0.1:7420' })).toBe('origin-not-allowed');
    expect(await verdict('https://localhost:7420/x', { host: 'localhost:7420', origin: 'http://localhost:7420' })).toBe('origin-not-allowed');
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'http://localhost:7420' })).toBe('origin-not-allowed');
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'null' })).toBe('origin-not-allowed');
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'file:///etc' })).toBe('origin-not-allowed');
    expect(await verdict('http://127.0.0.1:7420/x', { host: '127.0.0.1:7420', origin: 'not a url' })).toBe('origin-not-allowed');
    expect(await verdict('http://evil.example/x', { host: 'evil.example', origin: 'http://evil.example' })).toBe('host-not-allowed');
  });
});
