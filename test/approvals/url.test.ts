import { describe, expect, it } from 'vitest';
import { ApprovalLinkError, approvalPostUrl, approvalUrl } from '../../shared/approvals/index.ts';

describe('approvalUrl', () => {
  it.each([
    ['https://approve.example.com', 'https://approve.example.com/approvals/apr_1?t=tok.sig'],
    ['https://approve.example.com/', 'https://approve.example.com/approvals/apr_1?t=tok.sig'],
    [
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod/approvals/apr_1?t=tok.sig',
    ],
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/approvals/apr_1?t=tok.sig'],
  ])('builds the link under %s', (base, expected) => {
    // Act / Assess
    expect(approvalUrl(base, 'apr_1', 'tok.sig')).toBe(expected);
  });

  it('encodes the approval id as one path segment', () => {
    // Act / Assess
    expect(approvalUrl('https://x.example', 'a/b?c#d', 't')).toBe(
      'https://x.example/approvals/a%2Fb%3Fc%23d?t=t',
    );
  });

  it('gives the form action without the token', () => {
    // Act / Assess
    expect(approvalPostUrl('https://x.example/prod', 'apr_1')).toBe('https://x.example/prod/approvals/apr_1');
  });

  it.each([
    ['plain http to a public host', 'http://approve.example.com', 'apr_1'],
    ['a query string', 'https://x.example/?a=1', 'apr_1'],
    ['credentials', 'https://user:pw@x.example', 'apr_1'],
    ['not a URL', 'approve.example.com', 'apr_1'],
    ['a javascript URL', 'javascript:alert(1)', 'apr_1'],
    ['a dot-dot approval id', 'https://x.example', '..'],
  ])('refuses %s', (_label, base, approvalId) => {
    // Act / Assess
    expect(() => approvalUrl(base, approvalId, 't')).toThrow(ApprovalLinkError);
  });
});
