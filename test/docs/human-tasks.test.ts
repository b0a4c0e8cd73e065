/** Every fenced block of docs/human-tasks.md, checked against the code it describes. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedTaskUrl } from '../../shared/human-tasks/notices.ts';
import type { HumanTask } from '../../shared/schemas/human-task.ts';
import { blockWith, calledNames, exportedNames, fencedBlocks, linkFormat } from './fenced-blocks.ts';

const PAGE = 'human-tasks.md';

describe('docs/human-tasks.md', () => {
  it('has the two blocks this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual(['', '']);
  });

  it('the flow names operations the code exports', () => {
    const flow = blockWith(PAGE, 'startHumanTaskWait(deps');
    // camelCase calls are operations; capitalised words are Step Functions states and errors.
    const operations = calledNames(flow.body).filter((name) => /^[a-z]+[A-Z]/.test(name));
    expect(operations).toEqual(
      expect.arrayContaining([
        'startHumanTaskWait',
        'humanTaskPort',
        'openHumanTask',
        'expireHumanTask',
        'closeHumanTasks',
      ]),
    );
    const named = [...flow.body.matchAll(/\b(completeHumanTask|closeFailedWaitTask)\b/g)].map((m) => m[1]);
    expect(named).toEqual(['completeHumanTask', 'closeFailedWaitTask']);
    for (const name of [...operations, ...named]) expect(exportedNames(), name).toContain(name);
  });

  it("an assignee's link made by the code has the documented URL, claims and MAC", () => {
    const format = linkFormat(blockWith(PAGE, 'wf-human-task/v1/link'));
    const secret = 't'.repeat(32);
    const task = {
      taskId: 'htk_1_review_1',
      expiresAt: '2026-12-01T00:00:00.000Z',
      formHash: 'b'.repeat(64),
    };
    const base = 'https://pages.example.com/prod';
    const url = new URL(
      signedTaskUrl(base, { current: { kid: 'k1', secret } }, task as HumanTask, 'ana@example.com'),
    );
    const token = url.searchParams.get('t') ?? '';
    expect(url.toString()).toBe(
      format.url
        .replace('<publicBaseUrl>', base)
        .replace('<taskId>', task.taskId)
        .replace('<payload>.<mac>', token),
    );
    const [payload, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(claims).sort()).toEqual([...format.claims].sort());
    expect(claims).toMatchObject({ v: 1, taskId: task.taskId, assignee: 'ana@example.com' });
    expect(mac).toBe(createHmac('sha256', secret).update(format.domain).update(payload).digest('base64url'));
  });
});
