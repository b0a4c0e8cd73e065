import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../../shared/model/scripted-server-cli.ts', import.meta.url));
const fixture = fileURLToPath(new URL('../../examples/fixtures/hello.fixture.json', import.meta.url));

describe('scripted-server-cli', () => {
  it('serves a fixture file on the printed loopback URL and exits 0 on SIGTERM when nothing failed', async () => {
    // Prepare
    const child = spawn(process.execPath, [cli, '--fixture', fixture, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const url = chunk.toString().trim();

    // Act
    const response = await fetch(`${url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];

    // Assess
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(response.status).toBe(200);
    expect(code).toBe(0);
  });

  it('exits 2 with the usage when no fixture is given', async () => {
    // Act
    const child = spawn(process.execPath, [cli], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    const [code] = (await once(child, 'exit')) as [number];

    // Assess
    expect(code).toBe(2);
    expect(stderr).toContain('usage: scripted-server-cli --fixture');
  });
});
