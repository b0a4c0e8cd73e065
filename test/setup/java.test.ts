import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('DynamoDB Local prerequisites', () => {
  it('names what to install when Java is missing', () => {
    // Run the check in a child process whose PATH has no java on it.
    const script =
      "import('./shared/local/dynamodb-local.ts').then((m) => { try { m.assertJava(); console.log('found'); } catch (e) { console.log(e.name + ': ' + e.message); } })";
    const child = spawnSync(process.execPath, ['-e', script], {
      env: { PATH: '/nonexistent' },
      encoding: 'utf8',
      cwd: process.cwd(),
    });
    expect(child.stdout).toMatch(/^JavaMissingError: DynamoDB Local needs Java 17 or later/);
    expect(child.stdout).toMatch(/apt-get install -y openjdk-17-jre-headless/);
  });
});
