import { describe, expect, it } from 'vitest';
import { CredentialRefusedError } from '../../shared/core/errors.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { redactModelContent } from '../../shared/core/redaction.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { secretsFile } from '../actions/support.ts';

const SECRET = 'wfsecret-ModelSays-Gh2+Ue/19Ip=Ws47';
const refs = { token: { secret: 'wf/owner-test/token' } };

describe('redactModelContent', () => {
  it('redacts the workflow credentials from text and tool inputs (values and keys, nested) in a fresh process, and leaves signed thinking alone', async () => {
    // Prepare: a secrets port that has resolved nothing yet, as in a new Lambda container.
    const secrets = secretsFile({ 'wf/owner-test/token': SECRET });
    const content: ContentBlock[] = [
      { type: 'thinking', thinking: `the token is ${SECRET}`, signature: 'sig' },
      { type: 'text', text: `Sending ${SECRET} now` },
      {
        type: 'tool_use',
        id: 't1',
        name: 'http_request',
        input: {
          url: `https://x.example/?k=${encodeURIComponent(SECRET)}`,
          headers: { [SECRET]: Buffer.from(SECRET).toString('base64') },
          n: [1, true, null],
        },
      },
    ];

    // Act
    const redacted = await redactModelContent(content, refs, secrets, 'owner-test');

    // Assess
    expect(redacted).toEqual([
      { type: 'thinking', thinking: `the token is ${SECRET}`, signature: 'sig' },
      { type: 'text', text: `Sending ${REDACTED} now` },
      {
        type: 'tool_use',
        id: 't1',
        name: 'http_request',
        input: {
          url: `https://x.example/?k=${REDACTED}`,
          headers: { [REDACTED]: REDACTED },
          n: [1, true, null],
        },
      },
    ]);
  });

  it('keeps nothing when a credential cannot be read: the answer could carry it unredacted', async () => {
    const content: ContentBlock[] = [{ type: 'text', text: 'hello' }];
    // A secret that is not there can never be read: final (CredentialRefusedError), not retried.
    const refused = redactModelContent(content, refs, secretsFile({}), 'owner-test');
    await expect(refused).rejects.toBeInstanceOf(CredentialRefusedError);
    await expect(refused).rejects.toThrow(/credential 'token' cannot be read/);
  });
});
