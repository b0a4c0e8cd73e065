import { describe, expect, it } from 'vitest';
import {
  type ApprovalOutcome,
  approvalResult,
  RESULT_TITLES,
  renderResultPage,
} from '../../shared/approvals/index.ts';

describe('approvalResult', () => {
  it.each<[ApprovalOutcome, number, RegExp]>([
    [{ kind: 'approved' }, 200, /Approved — the run continues/],
    [{ kind: 'denied' }, 200, /Denied/],
    [{ kind: 'invalid_link' }, 403, /not valid/],
    [{ kind: 'expired_link' }, 410, /link has expired/],
    [{ kind: 'form_expired' }, 403, /open too long/],
    [{ kind: 'invalid_request' }, 400, /incomplete/],
    [{ kind: 'approval_expired' }, 410, /expired before anyone decided/],
    [{ kind: 'unknown_approval' }, 404, /no such approval/],
    [
      {
        kind: 'already_decided',
        decision: 'approved',
        by: 'alice@example.com',
        atIso: '2025-06-01T12:30:00Z',
      },
      409,
      /This approval was already decided: approved by alice@example\.com at 2025-06-01 12:30:00 UTC/,
    ],
  ])('gives %o the HTTP status %i and a stable text', (outcome, httpStatus, text) => {
    // Act
    const result = approvalResult(outcome);
    const html = renderResultPage(result.view);
    // Assess
    expect(result.httpStatus).toBe(httpStatus);
    expect(html).toContain(`<h1>${RESULT_TITLES[outcome.kind]}</h1>`);
    expect(html).toMatch(text);
  });

  it('says "already decided" in the heading and the message', () => {
    // Act
    const html = renderResultPage(
      approvalResult({
        kind: 'already_decided',
        decision: 'denied',
        by: 'bob',
        atIso: '2025-06-01T12:30:00Z',
      }).view,
    );
    // Assess
    expect(html).toContain('<h1>Already decided</h1>');
    expect(html).toContain('already decided: denied by bob');
  });
});

describe('renderResultPage', () => {
  it('escapes title and message and contains no script', () => {
    // Act
    const html = renderResultPage({
      title: '<script>t</script>',
      message: '<script>m</script>',
      status: 'error',
    });
    // Assess
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<h1>&lt;script&gt;t&lt;/script&gt;</h1>');
    expect(html).toContain('&lt;script&gt;m&lt;/script&gt;');
  });

  it('escapes the decider named in an already-decided message', () => {
    // Act
    const html = renderResultPage(
      approvalResult({
        kind: 'already_decided',
        decision: 'approved',
        by: '<img src=x onerror=alert(1)>',
        atIso: 'x',
      }).view,
    );
    // Assess
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it.each(['success', 'info', 'error'] as const)('marks the %s tone on the body', (status) => {
    // Act / Assess
    expect(renderResultPage({ title: 'T', message: 'M', status })).toContain(
      `<body class="status-${status}">`,
    );
  });
});
