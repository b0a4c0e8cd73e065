/**
 * Keeps credential values out of what the model said. A model can only repeat a credential it was shown
 * (a leak, a prompt injection), but whatever it writes is persisted in the transcript and, as tool input,
 * in ledger rows and approvals. So the engine redacts every value of the workflow's credentials from each
 * answer before it stores or dispatches it; a tool call that carried one then carries the marker (which
 * http_request and fetch_url refuse). Thinking blocks stay as they are: they are signed, and an edited one
 * would be refused on replay.
 *
 * The secrets port redacts only the values it holds for the owner, and holds a value only once resolved in
 * this container (and for a while after: owner-redactors.ts). A credential that cannot be resolved now
 * (a read that failed, or the port's per-container cap refusing a new owner) may still be one the model was
 * shown in an earlier invocation, and the answer cannot be redacted of it: fail closed, nothing is kept
 * (CredentialUnavailableError, or CredentialRefusedError when the port says retrying cannot help). The model step checks the same before its call (`assertCredentialsReadable`),
 * so a refusal usually costs no model call.
 */
import type { CredentialRefSpec } from '../schemas/credentials.ts';
import { credentialFailure } from './errors.ts';
import { mapStrings } from './map-strings.ts';
import type { ContentBlock, SecretsPort } from './ports.ts';
import { unreadableCredential } from './redacted-dispatch.ts';

/** The text and tool inputs of `content` with `map` applied to every string; thinking blocks as they are. */
const mapContent = (content: ContentBlock[], map: (text: string) => string): ContentBlock[] =>
  content.map((block) => {
    if (block.type === 'text') return { ...block, text: map(block.text) };
    if (block.type === 'tool_use') return { ...block, input: mapStrings(block.input, map) };
    return block;
  });

/**
 * `content` with every lone UTF-16 surrogate in its text and tool inputs replaced by U+FFFD. The API's JSON
 * can carry one as an escape; kept, it could not be sealed into the audit chain (RFC 8785), stored as UTF-8,
 * or sent back to the Messages API (core/byte-caps.ts `cutText`), so every retry of the turn failed the same way.
 */
export const wellFormedContent = (content: ContentBlock[]): ContentBlock[] =>
  mapContent(content, (text) => text.toWellFormed());

/**
 * Resolves every credential of the workflow for `owner`; throws for one that fails: CredentialRefusedError when
 * it can never be read (final), CredentialUnavailableError otherwise (retried).
 */
export async function assertCredentialsReadable(
  credRefs: Record<string, CredentialRefSpec>,
  secrets: SecretsPort,
  owner: string,
): Promise<void> {
  const unreadable = await unreadableCredential({ credRefs, secrets, owner });
  if (unreadable) throw credentialFailure(unreadable.slot, unreadable.cause);
}

/** `content` with every value of the workflow's credentials cut out; throws when one cannot be resolved. */
export async function redactModelContent(
  content: ContentBlock[],
  credRefs: Record<string, CredentialRefSpec>,
  secrets: SecretsPort,
  owner: string,
): Promise<ContentBlock[]> {
  if (Object.keys(credRefs).length === 0) return content;
  await assertCredentialsReadable(credRefs, secrets, owner);
  return mapContent(content, (text) => secrets.redact(owner, text));
}
