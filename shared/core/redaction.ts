/**
 * Keeps credential values out of what the model said. A model can only repeat a credential it was shown
 * (a leak, a prompt injection), but whatever it writes is persisted in the transcript and, as tool input,
 * in ledger rows and approvals. So the engine redacts every value of the workflow's credentials from each
 * answer before it stores or dispatches it; a tool call that carried one then carries the marker (which
 * http_request and fetch_url refuse). Thinking blocks stay as they are: they are signed, and an edited one
 * would be refused on replay.
 */
import type { CredentialRefSpec } from '../schemas/credentials.ts';
import type { ContentBlock, SecretsPort } from './ports.ts';

function redactValue(input: unknown, redact: (text: string) => string): unknown {
  if (typeof input === 'string') return redact(input);
  if (Array.isArray(input)) return input.map((item) => redactValue(item, redact));
  if (input !== null && typeof input === 'object') {
    return Object.fromEntries(
      Object.entries(input).map(([key, inner]) => [redact(key), redactValue(inner, redact)]),
    );
  }
  return input;
}

export async function redactModelContent(
  content: ContentBlock[],
  credRefs: CredentialRefSpec[],
  secrets: SecretsPort,
  owner: string,
): Promise<ContentBlock[]> {
  if (credRefs.length === 0) return content;
  // The secrets port redacts the values it has resolved: resolve this workflow's first, so redaction holds in
  // a fresh container too. A credential that cannot be read now cannot have been shown to the model by us.
  await Promise.all(
    credRefs.map((ref) =>
      secrets
        .resolve(
          ref.field === undefined
            ? { owner, secret: ref.secret }
            : { owner, secret: ref.secret, field: ref.field },
        )
        .catch(() => undefined),
    ),
  );
  const redact = (text: string) => secrets.redact(owner, text);
  return content.map((block) => {
    if (block.type === 'text') return { ...block, text: redact(block.text) };
    if (block.type === 'tool_use') return { ...block, input: redactValue(block.input, redact) };
    return block;
  });
}
