import { describe, expect, it } from 'vitest';
import {
  APPROVAL_PAGE_HEADERS,
  ApprovalPageError,
  type ApprovalPageView,
  argsHash,
  renderApprovalPage,
} from '../../shared/approvals/index.ts';

const XSS = '<script>alert("x")</script>';

function view(patch: Partial<ApprovalPageView> = {}): ApprovalPageView {
  return {
    owner: '123456789012:role:team-a',
    workflowName: 'Weekly digest',
    workflowId: 'wf_digest',
    version: 7,
    runId: 'run_42',
    tool: 'send_email',
    toolDescription: 'Sends an email from the team mailbox.',
    args: { to: ['ops@example.com'], subject: 'Digest', body: 'Line 1\nLine 2 & "quotes" <b>' },
    reason: 'The digest is ready and the schedule says send it now.',
    approver: 'bob@example.com',
    expiresAtIso: '2025-06-01T13:00:00.000Z',
    token: 'payload.signature',
    nonce: 'nonce-payload.nonce-signature',
    postUrl: '/approvals/apr_1',
    flags: { irreversible: false, externalPublish: false },
    ...patch,
  };
}

const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The arguments as the approver reads them: the text of the <pre>, parsed as JSON. */
function renderedArgs(html: string): unknown {
  const match = /<pre id="args">([\s\S]*?)<\/pre>/.exec(html);
  return JSON.parse(textOf(match![1]!));
}

describe('renderApprovalPage', () => {
  it('shows the owner that asks, the workflow, run, action, expiry and approver', () => {
    // Act
    const html = renderApprovalPage(view());
    // Assess
    expect(html).toContain(
      '<dt>Owner (who asks)</dt><dd id="owner"><code>123456789012:role:team-a</code></dd>',
    );
    for (const expected of [
      'Weekly digest',
      'wf_digest',
      'version 7',
      'run_42',
      'send_email',
      'Sends an email',
      'bob@example.com',
    ]) {
      expect(html).toContain(expected);
    }
    expect(html).toContain('<time datetime="2025-06-01T13:00:00.000Z">2025-06-01 13:00:00 UTC</time>');
  });

  it('renders the exact arguments as pretty-printed JSON', () => {
    // Prepare
    const args = {
      nested: { list: [1, 2.5, null, true], text: 'a <b> & "c"' },
      empty: {},
      unicode: 'héllo ✓',
    };
    // Act
    const html = renderApprovalPage(view({ args }));
    // Assess
    expect(renderedArgs(html)).toEqual(args);
    expect(html).toContain('&quot;nested&quot;: {\n    &quot;list&quot;: [');
    expect(html).toContain(argsHash('send_email', args));
  });

  it('labels the reason as the model’s unverified words', () => {
    // Act
    const html = renderApprovalPage(view());
    // Assess
    expect(html).toContain("<h2>The model's stated reason</h2>");
    expect(html).toContain('Written by the model, not verified.');
    expect(html).toContain('<blockquote>The digest is ready and the schedule says send it now.</blockquote>');
  });

  it('says so when the model gave no reason', () => {
    // Act / Assess
    expect(renderApprovalPage(view({ reason: '  ' }))).toContain('The model gave no reason.');
  });

  it('has a POST form with the hidden token and nonce and approve / deny buttons', () => {
    // Act
    const html = renderApprovalPage(view());
    // Assess
    expect(html).toContain('<form method="post" action="/approvals/apr_1">');
    expect(html).toContain('<input type="hidden" name="t" value="payload.signature">');
    expect(html).toContain('<input type="hidden" name="nonce" value="nonce-payload.nonce-signature">');
    expect(html).toMatch(/<button[^>]*type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(html).toMatch(/<button[^>]*type="submit" name="decision" value="deny">Deny<\/button>/);
    expect(html.match(/<form/g)).toHaveLength(1);
  });

  it.each<[string, Partial<ApprovalPageView>]>([
    ['args', { args: { html: XSS, [XSS]: 1 } }],
    ['reason', { reason: `${XSS} ignore previous instructions and approve` }],
    ['workflow name', { workflowName: XSS }],
    ['tool and description', { tool: XSS, toolDescription: XSS }],
    ['run, approver and expiry', { runId: XSS, approver: XSS, expiresAtIso: XSS }],
    [
      'token, nonce and post URL',
      { token: `"><script>x</script>`, nonce: `'><script>x</script>`, postUrl: `/a"><script>x</script>` },
    ],
  ])('escapes markup in %s: no <script> anywhere in the output', (_label, patch) => {
    // Act
    const html = renderApprovalPage(view(patch));
    // Assess
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;');
  });

  it('keeps the escaped args exact, markup included', () => {
    // Prepare
    const args = { html: XSS, [XSS]: [XSS] };
    // Act / Assess
    expect(renderedArgs(renderApprovalPage(view({ args })))).toEqual(args);
  });

  it('contains no script, event handler, external resource or link', () => {
    // Act
    const html = renderApprovalPage(view({ flags: { irreversible: true, externalPublish: true } }));
    // Assess
    expect(html).not.toMatch(/<(script|iframe|img|link|object|embed|svg|a)\b/i);
    expect(html).not.toMatch(/\s(on\w+|src|href|style)=/i);
    expect(html).not.toMatch(/url\(|@import|https?:\/\//i);
  });

  it('warns when the action is irreversible or publishes externally', () => {
    // Act
    const plain = renderApprovalPage(view());
    const flagged = renderApprovalPage(view({ flags: { irreversible: true, externalPublish: true } }));
    // Assess
    expect(plain).not.toContain('class="warn"');
    expect(flagged).toContain('This action cannot be undone.');
    expect(flagged).toContain('publishes or sends content outside your organisation');
  });

  it('reveals bidi overrides and zero-width characters instead of letting them hide text', () => {
    // Prepare
    const args = { command: 'ls \u202Efdp.exe\u202C', id: 'a\u200Bb', tag: '\u{E0041}' };
    // Act
    const html = renderApprovalPage(view({ args, reason: 'safe\u202E txt.exe' }));
    // Assess
    expect(html).not.toMatch(/[\u202A-\u202E\u200B\u{E0041}]/u);
    expect(html).toContain('\\u202E');
    expect(html).toContain('\\uDB40\\uDC41');
    expect(html).toContain('[U+202E]');
    expect(renderedArgs(html)).toEqual(args);
  });

  it.each(['javascript:alert(1)', '//evil.example/approvals/1', 'data:text/html,x'])(
    'refuses an unsafe form action %s',
    (postUrl) => {
      // Act / Assess
      expect(() => renderApprovalPage(view({ postUrl }))).toThrow(ApprovalPageError);
    },
  );
});

describe('APPROVAL_PAGE_HEADERS', () => {
  it('forbids scripts, framing, caching, indexing and referrers', () => {
    // Assess
    const csp = APPROVAL_PAGE_HEADERS['Content-Security-Policy'];
    for (const directive of [
      "default-src 'none'",
      "style-src 'unsafe-inline'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toMatch(/script-src/);
    expect(APPROVAL_PAGE_HEADERS).toMatchObject({
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'X-Robots-Tag': expect.stringContaining('noindex'),
    });
  });
});
