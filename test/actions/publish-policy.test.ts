import { describe, expect, it } from 'vitest';
import { connectorActions, createActionCatalog, httpBuiltins } from '../../shared/actions/index.ts';
import { type PublishPolicy, parseInternalHosts, sendsOutside } from '../../shared/actions/publish-policy.ts';
import { effectiveGrant, evaluateGate } from '../../shared/core/gate.ts';
import { definitionWith } from './support.ts';

const INTERNAL: PublishPolicy = { internalHosts: ['billing.internal.example.com'] };

describe('Function: sendsOutside', () => {
  it.each([
    ['GET', 'https://api.example.com/x', false],
    ['HEAD', 'https://api.example.com/x', false],
    ['POST', 'https://api.example.com/x', true],
    ['put', 'https://api.example.com/x', true],
    ['PATCH', 'https://api.example.com/x', true],
    ['DELETE', 'https://api.example.com/x', true],
    ['POST', 'https://billing.internal.example.com/x', false],
    ['POST', 'https://BILLING.internal.example.com:8443/x', false],
    ['POST', 'https://billing.internal.example.com.evil.example/x', true],
    ['POST', 'not a url', true],
  ])('%s %s → %s', (method, url, expected) => {
    expect(sendsOutside(method, url, INTERNAL)).toBe(expected);
  });

  it('reads the operator setting: comma-separated, trimmed, lowercased', () => {
    expect(parseInternalHosts(' A.example.com, ,b.example.com ')).toEqual(['a.example.com', 'b.example.com']);
    expect(parseInternalHosts(undefined)).toEqual([]);
  });
});

const definition = definitionWith({
  allowedActions: ['http_request', 'post_hook', 'quiet_hook', 'tell_team', 'open_issue'],
  gates: {
    http_request: 'allow',
    post_hook: 'allow',
    quiet_hook: 'allow',
    tell_team: 'allow',
    open_issue: 'allow',
  },
  approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
  connectors: {
    post_hook: {
      kind: 'http',
      description: 'Posts a record to a partner.',
      method: 'POST',
      url: 'https://partner.example.com/records',
      externalPublish: false,
    },
    quiet_hook: {
      kind: 'http',
      description: 'Posts to the internal billing service.',
      method: 'POST',
      url: 'https://billing.internal.example.com/records',
    },
    tell_team: { kind: 'slack_webhook', credential: { slot: 'hook' }, externalPublish: false },
    open_issue: {
      kind: 'github_create_issue',
      repo: 'acme/app',
      credential: { slot: 'gh' },
      externalPublish: false,
    },
  },
  credRefs: { hook: { secret: 'wf/test/hook' }, gh: { secret: 'wf/test/gh' } },
});

function gate(name: string, input: unknown, policy: PublishPolicy = INTERNAL) {
  const catalog = createActionCatalog({
    notes: { put: async () => undefined, append: async () => 0 } as never,
    httpBuiltins: httpBuiltins({ publish: policy }),
    connectorAction: connectorActions({ publish: policy }),
  });
  return evaluateGate({ name, input }, effectiveGrant(definition, definition, true), catalog, definition)
    .decision;
}

describe('Gate: external publishing decided per call', () => {
  it.each([
    [
      'http_request GET outside',
      'http_request',
      { method: 'GET', url: 'https://api.example.com/x' },
      'allow',
    ],
    [
      'http_request POST outside',
      'http_request',
      { method: 'POST', url: 'https://api.example.com/x', body: 'x' },
      'needs_approval',
    ],
    [
      'http_request DELETE outside',
      'http_request',
      { method: 'DELETE', url: 'https://api.example.com/x/1' },
      'needs_approval',
    ],
    [
      'http_request POST to an internal host',
      'http_request',
      { method: 'POST', url: 'https://billing.internal.example.com/x', body: 'x' },
      'allow',
    ],
    ['an http connector posting outside, declared externalPublish: false', 'post_hook', {}, 'needs_approval'],
    ['an http connector posting to an internal host', 'quiet_hook', {}, 'allow'],
    ['a Slack connector declared externalPublish: false', 'tell_team', { text: 'hi' }, 'needs_approval'],
    [
      'a GitHub connector declared externalPublish: false',
      'open_issue',
      { title: 't', body: 'b' },
      'needs_approval',
    ],
  ])('%s → %s although its gate is allow', (_label, name, input, expected) => {
    expect(gate(name, input)).toBe(expected);
  });

  it('treats every host as outside when the operator named none', () => {
    expect(gate('quiet_hook', {}, {})).toBe('needs_approval');
  });
});
