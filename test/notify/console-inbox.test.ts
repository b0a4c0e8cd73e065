import { describe, expect, it } from 'vitest';
import {
  argsPreview,
  consoleNotifier,
  inboxNotifier,
  noticeBody,
  renderInbox,
} from '../../shared/notify/index.ts';
import { notice } from './fixtures.ts';

describe('consoleNotifier', () => {
  it('prints one clear block per notice with the link, the workflow, the action and the expiry', async () => {
    const out: string[] = [];

    await consoleNotifier((text) => out.push(text)).notify(notice());

    expect(out).toHaveLength(1);
    expect(out[0]).toContain('[team-a] Approval needed: notes_append (release-notes)');
    expect(out[0]).toContain('https://approve.example.com/approvals/apr_0123456789?t=eyJhcHByb3Zh.c2ln');
    expect(out[0]).toContain('Expires:    2026-11-30T07:10:00.000Z');
    expect(out[0]).toContain('Approver:   Boss@Example.com');
  });

  it('shows terminal escapes and bidi overrides in model-written values as visible \\u escapes', async () => {
    const out: string[] = [];

    await consoleNotifier((text) => out.push(text)).notify(
      notice({
        workflowName: 'evil\u001b[2Jname\u202e',
        argsPreview: argsPreview({ line: 'ls\u202e fr- mr' }),
      }),
    );

    expect(out[0]!.includes('\u001b') || out[0]!.includes('\u202e')).toBe(false);
    expect(out[0]).toContain('evil\\u001b[2Jname\\u202e');
    expect(out[0]).toContain('ls\\u202e fr- mr');
  });
});

describe('argsPreview', () => {
  it('is compact JSON on one line, cut with an ellipsis when long', () => {
    expect(argsPreview({ a: 1, b: 'two' })).toBe('{"a":1,"b":"two"}');
    expect(argsPreview(undefined)).toBe('null');
    const long = argsPreview({ text: 'x'.repeat(1000) }, 50);
    expect(long).toHaveLength(50);
    expect(long.endsWith('…')).toBe(true);
    expect(argsPreview({ text: 'a\nb' })).not.toContain('\n');
  });
});

describe('noticeBody', () => {
  it('tells the approver that opening the link changes nothing and not to forward it', () => {
    const body = noticeBody(notice());

    expect(body).toContain('Opening the link changes nothing');
    expect(body).toContain('do not forward it');
  });
});

describe('inboxNotifier and renderInbox', () => {
  it('keeps notices in memory, dropping the oldest beyond its limit', async () => {
    const inbox = inboxNotifier({ max: 2 });

    for (const runId of ['run_a', 'run_b', 'run_c']) await inbox.notify(notice({ runId }));

    expect(inbox.notices().map((n) => n.runId)).toEqual(['run_b', 'run_c']);
    inbox.clear();
    expect(inbox.notices()).toEqual([]);
  });

  it('lists pending links newest first, escaped, without script', async () => {
    const html = renderInbox(
      [
        notice({ runId: 'run_old', workflowName: '<script>alert(1)</script>' }),
        notice({ runId: 'run_new', url: 'http://127.0.0.1:8787/approvals/apr_x?t=a.b&x=<y>' }),
      ],
      { nowMs: Date.parse('2026-11-30T07:00:00.000Z') },
    );

    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html.indexOf('run_new')).toBeLessThan(html.indexOf('run_old'));
    expect(html).toContain('href="http://127.0.0.1:8787/approvals/apr_x?t=a.b&amp;x=&lt;y&gt;"');
    expect(html.match(/<a href=/g)).toHaveLength(2);
  });

  it('shows expired notices and non-http links without a link', () => {
    const nowMs = Date.parse('2026-11-30T08:00:00.000Z');

    const html = renderInbox(
      [notice(), notice({ expiresAt: '2026-12-01T00:00:00.000Z', url: 'javascript:alert(1)' })],
      {
        nowMs,
      },
    );

    expect(html).not.toContain('<a href=');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('link expired');
    expect(html).toContain('unusable link');
  });

  it('says so when there is nothing', () => {
    expect(renderInbox([])).toContain('No approval requests yet.');
  });
});
