/**
 * Keeps credential values out of what the model says. A model can only repeat a credential it was given
 * (a leak, a prompt), but whatever it writes is persisted in the transcript and, as tool input, in ledger
 * rows and approvals. `redactingModel` redacts every value the secrets port knows from each answer before
 * the engine stores or dispatches it; a tool call that carried one then carries the marker (which
 * http_request and fetch_url refuse). Thinking blocks are left as they are: they are signed, and an edited
 * one would be refused on replay.
 *
 * The secrets port only knows values it has resolved in this process, so the catalog notes the credRefs
 * of every workflow it resolves actions for (`noticingCatalog`; the engine resolves the offered tools just
 * before it calls the model) and the model wrapper resolves those first: the redaction holds in a fresh
 * Lambda container too.
 */
import type { ActionCatalog } from '../core/actions.ts';
import type { ContentBlock, CredentialRef, ModelPort, SecretsPort } from '../core/ports.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { credentialRefOf } from './credential-check.ts';

/** At most this many distinct references are remembered (oldest dropped first). */
const MAX_REMEMBERED = 1_000;

/** Credential references of the workflows this process has served. */
export class SeenCredentials {
  readonly #refs = new Map<string, CredentialRef>();

  /** Remembers the credRefs of a workflow definition. */
  note(definition: WorkflowDefinition): void {
    for (const spec of Object.values(definition.credRefs)) {
      const ref = credentialRefOf(spec);
      const key = `${ref.secret}\u0000${ref.field ?? ''}`;
      if (this.#refs.has(key)) continue;
      this.#refs.set(key, ref);
      if (this.#refs.size > MAX_REMEMBERED) this.#refs.delete(this.#refs.keys().next().value!);
    }
  }

  /** The remembered references, oldest first. */
  list(): CredentialRef[] {
    return [...this.#refs.values()];
  }
}

/** The catalog, noting the credRefs of each workflow it is asked about. */
export function noticingCatalog(catalog: ActionCatalog, seen: SeenCredentials): ActionCatalog {
  return {
    resolve(name, definition) {
      seen.note(definition);
      return catalog.resolve(name, definition);
    },
  };
}

/** The model port with credential values redacted from every answer (see above). */
export function redactingModel(model: ModelPort, secrets: SecretsPort, seen?: SeenCredentials): ModelPort {
  const value = (input: unknown): unknown => {
    if (typeof input === 'string') return secrets.redact(input);
    if (Array.isArray(input)) return input.map(value);
    if (input !== null && typeof input === 'object') {
      return Object.fromEntries(
        Object.entries(input).map(([key, inner]) => [secrets.redact(key), value(inner)]),
      );
    }
    return input;
  };
  const block = (content: ContentBlock): ContentBlock => {
    if (content.type === 'text') return { ...content, text: secrets.redact(content.text) };
    if (content.type === 'tool_use') return { ...content, input: value(content.input) };
    return content;
  };
  return {
    async call(request) {
      const response = await model.call(request);
      for (const ref of seen?.list() ?? []) {
        // A credential that cannot be read now cannot be redacted; the answer is still the model's.
        await secrets.resolve(ref).catch(() => undefined);
      }
      return { ...response, content: response.content.map(block) };
    },
  };
}
