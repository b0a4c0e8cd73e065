/**
 * The worked example (`npm start`) end to end, unattended: its own local stack and DynamoDB Local on disk,
 * the newsfeed list and "my site" on free ports, the approval through the page's POST.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkedExample, type WorkedExampleResult } from '../../shared/demo/worked-example.ts';
import { testDefinitions } from '../support/local-definitions.ts';

const fixture = JSON.parse(
  await readFile(new URL('../../examples/fixtures/morning-news.fixture.json', import.meta.url), 'utf8'),
) as {
  turns: { response?: { content: { type: string; name?: string; input?: Record<string, string> }[] } }[];
};
const POST = fixture.turns[1]!.response!.content.find((block) => block.name === 'post_to_site')!.input!;

let dataDir: string;
let result: WorkedExampleResult;
const lines: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'wf-demo-'));
  result = await runWorkedExample({
    definitions: testDefinitions(),
    autoApprove: true,
    dataDir,
    feedPort: 0,
    sitePort: 0,
    print: (line) => lines.push(line),
  });
}, 180_000);

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('runWorkedExample({ autoApprove: true })', () => {
  it('ends ok: the run is done, my site received exactly one post, and the audit chain verified', () => {
    expect(result.ok).toBe(true);
    expect(result.run).toMatchObject({ status: 'done', stopReason: 'end_turn', modelCalls: 3 });
    expect(result.posts).toBe(1);
    expect(result.auditVerified).toBe(true);
  });

  it('ran on the free ports it was given, not on the example files’ 8701/8702', () => {
    const servers = lines.find((line) => line.startsWith('newsfeed list on '));

    expect(servers).toMatch(
      /^newsfeed list on http:\/\/127\.0\.0\.1:(\d+), "my site" on http:\/\/127\.0\.0\.1:(\d+)$/,
    );
    expect(servers).not.toMatch(/:870[12]\b/);
  });

  it('prints the approval link, the decision, the post, the cost and the verified chain', () => {
    const link = result.link;

    expect(link).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/approvals\/apr_[A-Za-z0-9]+\?t=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+&run=run_[A-Za-z0-9]+&owner=[^&]+&wf=wf_[A-Za-z0-9]+$/,
    );
    expect(lines).toContain('APPROVAL NEEDED: post_to_site wants to publish to the site.');
    expect(lines).toContain(`Open this link to review the exact post and approve or deny it:\n  ${link}`);
    expect(lines).toContain(
      'decision: approved through the approval page (HTTP 200), as a human click would',
    );
    expect(lines).toContain(
      `my site: received post "${POST.title}" (${POST.body!.split('\n').length} lines)`,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^cost: \$0\.0\d{5} \(\d+ input, 300 output, \d+ cache-read, \d+ cache-write tokens\)$/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^audit chain verified \(\d+ entries\)$/));
    expect(lines).toContain(`posts received by my site: 1`);
  });

  it('prints the progress: turns with the cost so far, gate decisions, the approval and the delivery', () => {
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}turn 1: model .* → tool_use .*\[cost so far \$\d+\.\d{4}\]$/),
    );
    expect(lines).toContain('    gate: fetch_url → allow');
    expect(lines).toContain('    gate: post_to_site → needs_approval');
    expect(lines).toContain('    approval approved by editor@example.com');
    expect(lines).toContain('    dispatch: post_to_site (approved)');
    expect(lines).toContain('  status: running → done (end_turn)');
    expect(lines).toContain('  delivered to report');
    expect(lines.indexOf('  delivered to report')).toBeLessThan(
      lines.findIndex((line) => line.startsWith('audit chain verified')),
    );
  });

  it('left the example files untouched: the rewritten workflow lives in the data directory', async () => {
    const original = await readFile(
      new URL('../../examples/morning-news.workflow.yaml', import.meta.url),
      'utf8',
    );
    const rewritten = await readFile(join(dataDir, 'morning-news.workflow.yaml'), 'utf8');

    expect(original).toContain('http://127.0.0.1:8701/feeds/engineering.xml');
    expect(original).toContain('url: http://127.0.0.1:8702/api/posts');
    expect(rewritten).not.toMatch(/127\.0\.0\.1:870[12]\b/);
    expect(rewritten.replaceAll(/127\.0\.0\.1:\d+/g, 'HOST')).toBe(
      original.replaceAll(/127\.0\.0\.1:\d+/g, 'HOST'),
    );
  });
});
