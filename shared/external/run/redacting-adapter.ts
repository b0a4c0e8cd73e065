/**
 * An adapter whose answers are redacted for the run's owner before any step sees them. An engine is handed
 * the owner's credential (injected server-side); whatever it sends back — a summary, a wait's or an unknown's
 * detail, cancel facts, a manifest, an artifact's text, an error's message — may echo it, and every step
 * stores or delivers those answers. Redacting here, where the one adapter of a step is built, covers every
 * step and every engine at once.
 */
import type { CredentialRef, SecretsPort } from '../../core/ports.ts';
import type { ExternalAdapter, VerifiedArtifact } from '../contract.ts';

/** `value` with every string in it (keys left alone) redacted. */
function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]),
    ) as T;
  }
  return value;
}

/** An engine's error with its message (and string or plain-object fields, e.g. evidence) redacted in place. */
function redactError(error: unknown, redact: (text: string) => string): unknown {
  if (!(error instanceof Error)) return error;
  error.message = redact(error.message);
  const fields = error as unknown as Record<string, unknown>;
  for (const name of Object.keys(fields)) fields[name] = redactDeep(fields[name], redact);
  return error;
}

/**
 * The verified artifact's bytes as the run keeps them: redacted when they hold a secret, untouched (byte for
 * byte, binary included) otherwise. The entry keeps the engine's digest of what it served.
 */
function redactArtifact(artifact: VerifiedArtifact, redact: (text: string) => string): VerifiedArtifact {
  const text = new TextDecoder().decode(artifact.bytes);
  const redacted = redact(text);
  if (redacted === text) return artifact;
  const bytes = new TextEncoder().encode(redacted);
  return {
    entry: artifact.entry,
    bytes,
    stream: () => new Blob([bytes]).stream(),
  };
}

export function redactingAdapter(
  adapter: ExternalAdapter,
  context: { owner: string; credential?: CredentialRef | undefined; secrets: SecretsPort },
): ExternalAdapter {
  let known: Promise<void> | undefined;
  // The port redacts what it has resolved in this process; the credential is resolved first so an answer
  // that arrives without a credentialed request (a callback) is redacted too. A credential that cannot be
  // loaded was never sent, so there is nothing of it to redact.
  const ensureKnown = () => {
    known ??= context.credential
      ? context.secrets.resolve(context.credential).then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve();
    return known;
  };
  const redact = (text: string) => context.secrets.redact(context.owner, text);
  const guarded = async <T>(call: () => Promise<T>, clean: (value: T) => T): Promise<T> => {
    let value: T;
    try {
      value = await call();
    } catch (error) {
      await ensureKnown();
      throw redactError(error, redact);
    }
    await ensureKnown();
    return clean(value);
  };
  const deep = <T>(value: T) => redactDeep(value, redact);
  const verifyCallback = adapter.verifyCallback?.bind(adapter);
  return {
    engine: adapter.engine,
    start: (key, payload) => guarded(() => adapter.start(key, payload), deep),
    observe: (key, incarnation) => guarded(() => adapter.observe(key, incarnation), deep),
    cancel: (key, incarnation) => guarded(() => adapter.cancel(key, incarnation), deep),
    listArtifacts: (key, incarnation) => guarded(() => adapter.listArtifacts(key, incarnation), deep),
    openArtifact: (key, incarnation, path) =>
      guarded(
        () => adapter.openArtifact(key, incarnation, path),
        (artifact) => redactArtifact(artifact, redact),
      ),
    ...(verifyCallback ? { verifyCallback: (request) => guarded(() => verifyCallback(request), deep) } : {}),
  };
}
