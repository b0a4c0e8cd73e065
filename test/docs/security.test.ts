/**
 * docs/security.md has no code blocks; what it quotes is checked against the code here: the approval link's
 * form, the Idempotency-Key, the denial text, the approval pages' headers, the redaction and credential-session
 * bounds, the anchors' group commit, the prompt-cache scope block and the budget wait.
 */
import { describe, expect, it } from 'vitest';
import { APPROVAL_PAGE_HEADERS, approvalUrl } from '../../shared/approvals/index.ts';
import { FORM_NONCE_MAX_AGE_MS } from '../../shared/approvals/nonce.ts';
import { DEFAULT_BUDGET_WAIT_MS } from '../../shared/core/budget.ts';
import { denialText } from '../../shared/core/gate.ts';
import { idempotencyKeyFor } from '../../shared/core/identity.ts';
import { inexactNumber, inexactNumberReason } from '../../shared/core/inexact-number.ts';
import { MAX_REDACTION_OWNERS, REDACTION_HOLD_MS } from '../../shared/credentials/owner-redactors.ts';
import { MAX_CACHED_OWNERS } from '../../shared/credentials/recent-owners.ts';
import { cacheScopeText } from '../../shared/model/anthropic-mapping.ts';
import { leadsGroup } from '../../shared/store/anchor-group.ts';
import { TRANSACTION_MAX_ITEMS } from '../../shared/store/transaction-limits.ts';
import { fencedBlocks, pageText } from './fenced-blocks.ts';

const PAGE = 'security.md';
/** The page with its line breaks as spaces: a quoted phrase may wrap. */
const page = pageText(PAGE).replace(/\s+/g, ' ');
const quoted = (pattern: RegExp) => pattern.exec(page)?.[1] ?? `no match for ${pattern}`;

describe('docs/security.md', () => {
  it('has no fenced blocks (what it quotes is checked below): a block added needs a check here', () => {
    expect(fencedBlocks(PAGE)).toEqual([]);
  });

  it('a signed approval link has the form the page gives', () => {
    const form = quoted(/\*\*Signed links\.\*\* `([^`]+)`/);
    const url = approvalUrl('https://approvals.example.com/prod', 'apr_1', 'payload.mac');
    expect(url).toBe(
      form
        .replace('<base>', 'https://approvals.example.com/prod')
        .replace('<id>', 'apr_1')
        .replace('<payload>.<mac>', 'payload.mac'),
    );
  });

  it("the Idempotency-Key is `wf-` + 40 hex of its identity's SHA-256, and the denial text is the gate's", () => {
    expect(page).toContain('(`wf-` + 40 hex of SHA-256 of its identity)');
    expect(idempotencyKeyFor('run_1', 3, 'toolu_1')).toMatch(/^wf-[0-9a-f]{40}$/);
    const denial = quoted(/the model is told why and not to retry \(`([^`]+)`\)/);
    expect(denialText({ reason: '…', fault: 'policy' })).toBe(denial);
  });

  it("the denial of the input alone is the gate's, inviting a corrected call", () => {
    const invite = quoted(/the model is told to fix it \(`([^`]+)`\)/);
    expect(denialText({ reason: '…', fault: 'input' })).toBe(invite);
  });

  it('the denial of a number past 2^53 is the one the gate gives', () => {
    const quote = quoted(/asking for a string: `([^`]+)`/);
    const found = inexactNumber(JSON.parse('{"account":{"id":12345678901234567890}}'));
    expect(found && denialText({ reason: inexactNumberReason(found), fault: 'input' })).toBe(quote);
  });

  it("the approval pages' headers are the ones the page quotes", () => {
    expect(quoted(/\(CSP `([^`]+)`/)).toBe(APPROVAL_PAGE_HEADERS['Content-Security-Policy']);
    for (const name of ['Referrer-Policy', 'Cache-Control', 'X-Frame-Options'] as const)
      expect(page).toContain(`\`${name}: ${APPROVAL_PAGE_HEADERS[name]}\``);
    expect(APPROVAL_PAGE_HEADERS['X-Robots-Tag']).toContain('noindex');
    expect(page).toContain(
      `a nonce from a render of the page within the last ${FORM_NONCE_MAX_AGE_MS / 60_000} minutes`,
    );
  });

  it('the redaction and credential-session bounds are the constants', () => {
    expect(page).toContain(
      `A value is held for **${REDACTION_HOLD_MS / 60_000} minutes after it was last handed out**`,
    );
    expect(page).toContain(
      `At most **${MAX_REDACTION_OWNERS.toLocaleString('en')} owners** are held at once`,
    );
    expect(page).toContain(`kept for the ${MAX_CACHED_OWNERS} most recently served owners`);
  });

  it("the anchors' group commit: 33 heads a transaction, 1 + 3 × 33 = 100 actions, the first 2 waiting heads lead, twice as many per attempt after 8", () => {
    const [, one, per, group, total] = /(\d+) \+ (\d+) × (\d+) = (\d+) actions/.exec(page) ?? [];
    expect(Number(one) + Number(per) * Number(group)).toBe(Number(total));
    expect(Number(total)).toBe(TRANSACTION_MAX_ITEMS);
    expect(page).toContain(`one transaction anchors up to ${group} of them`);
    // The first `leaders` positions lead at once; after the documented patience, twice as many per attempt.
    const leaders = Number(quoted(/Only the first (\d+) waiting heads in key order try/));
    const patience = Number(quoted(/after (\d+) attempts the leaders double with each further attempt/));
    for (let position = 0; position < leaders; position++) expect(leadsGroup(position, 1)).toBe(true);
    for (const position of [leaders, Number(group) - 1, Number(group)]) {
      expect(leadsGroup(position, 1)).toBe(false);
      expect(leadsGroup(position, patience)).toBe(false);
    }
    expect(leadsGroup(2 * leaders - 1, patience + 1)).toBe(true);
    expect(leadsGroup(2 * leaders, patience + 1)).toBe(false);
    expect(leadsGroup(4 * leaders - 1, patience + 2)).toBe(true);
    expect(leadsGroup(4 * leaders, patience + 2)).toBe(false);
    // A waiting run past a full group of crashed heads leads before its attempts run out (anchors.ts: 25).
    expect(leadsGroup(Number(group), patience + 5)).toBe(true);
  });

  it('the prompt-cache scope block and the budget wait are what the code uses', () => {
    expect(page).toContain('(`cache-scope: <first 32 hex digits of a SHA-256 of the owner>`;');
    expect(cacheScopeText('auth0|abc')).toMatch(/^cache-scope: [0-9a-f]{32}$/);
    expect(cacheScopeText('auth0|abc')).not.toBe(cacheScopeText('auth0|abd'));
    expect(page).toContain(`at most ${DEFAULT_BUDGET_WAIT_MS / 60_000} minutes (\`budgetWaitMs\`)`);
  });
});
