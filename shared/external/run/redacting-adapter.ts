/**
 * An adapter whose answers are redacted for the run's owner before any step sees them. An engine is handed
 * the owner's credential (injected server-side); whatever it sends back — a summary, a wait's or an unknown's
 * detail, cancel facts, a manifest, an artifact's text, an error's message — may echo it, and every step
 * stores or delivers those answers. Redacting here, where the one adapter of a step is built, covers every
 * step and every engine at once.
 */
import { cutText } from '../../core/byte-caps.ts';
import { isPermanentCredentialFailure } from '../../core/errors.ts';
import type { Clock, CredentialRef, SecretsPort } from '../../core/ports.ts';
import type { ExternalAdapter, VerifiedArtifact } from '../contract.ts';
import { ExternalRefusedError, ExternalTransportError } from '../errors.ts';

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

/** Why an answer is not used: the run owner's credential could not be resolved to redact it. */
const UNREDACTABLE =
  "the engine's answer was not used: the runtime could not load the run's engine credential to redact it";

/** No usable answer (it could not be redacted): retried like a transport failure, by the same name. */
class UnredactableAnswerError extends ExternalTransportError {
  constructor(engine: string, key: string | undefined) {
    super(engine, key, 'transport', UNREDACTABLE, true);
  }
}

/**
 * The credential can never be read as it is named (missing, not the owner's, access denied:
 * isPermanentCredentialFailure): retrying cannot help, so the answer is a final refusal naming it — Start ends
 * the run refused, any later step fails and AbandonExternal asks the engine to cancel. `sent`: whether the call
 * it answers may have left (false when the call itself was refused before sending: the same credential).
 */
function credentialRefused(
  engine: string,
  key: string | undefined,
  secret: string,
  cause: unknown,
  sent: boolean,
) {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ExternalRefusedError(
    engine,
    key,
    cutText(`credential ${secret} cannot be read (retrying will not help): ${reason}`, 500),
    { cause, sent },
  );
}

/** A refusal of ours: the request provably never left, so no engine answer came back. */
const unsent = (error: unknown): boolean => error instanceof ExternalRefusedError && !error.sent;

export function redactingAdapter(
  adapter: ExternalAdapter,
  context: {
    owner: string;
    credential?: CredentialRef | undefined;
    secrets: SecretsPort;
    /** Stamps an observation that could not be used. */
    clock: Clock;
  },
): ExternalAdapter {
  type Known = { ok: true } | { ok: false; permanent: boolean; cause: unknown };
  let known: Promise<Known> | undefined;
  // The port redacts what it has resolved in this process; the credential is resolved first so an answer
  // that arrives without a credentialed request (a callback) is redacted too. One that cannot be resolved now
  // (a failed read, the port's owner cap) may still have been sent by an earlier invocation, so the answer
  // could carry it unredacted: fail closed, the answer is not used (an unknown observation, a retryable
  // transport error otherwise: a start is deduplicated by its key), and the resolve is tried again next time.
  // A permanent failure is final at once (credentialRefused), not polled until the unknown deadline.
  const ensureKnown = async (key: string | undefined, sent = true): Promise<boolean> => {
    const { credential } = context;
    known ??= credential
      ? context.secrets.resolve(credential).then(
          (): Known => ({ ok: true }),
          (cause: unknown): Known => ({ ok: false, permanent: isPermanentCredentialFailure(cause), cause }),
        )
      : Promise.resolve({ ok: true });
    const answer = await known;
    if (answer.ok) return true;
    if (answer.permanent && credential)
      throw credentialRefused(adapter.engine, key, credential.secret, answer.cause, sent);
    known = undefined;
    return false;
  };
  const redact = (text: string) => context.secrets.redact(context.owner, text);
  const guarded = async <T>(
    key: string | undefined,
    call: () => Promise<T>,
    clean: (value: T) => T,
    sentNothing: (value: T) => boolean = () => false,
  ): Promise<T> => {
    let value: T;
    try {
      value = await call();
    } catch (error) {
      if (!(await ensureKnown(key, !unsent(error)))) throw new UnredactableAnswerError(adapter.engine, key);
      throw redactError(error, redact);
    }
    // An answer of the adapter's own (nothing left: no engine text in it) is used even unredactable.
    if (sentNothing(value)) return clean(value);
    if (!(await ensureKnown(key))) throw new UnredactableAnswerError(adapter.engine, key);
    return clean(value);
  };
  const deep = <T>(value: T) => redactDeep(value, redact);
  const verifyCallback = adapter.verifyCallback?.bind(adapter);
  const find = adapter.find?.bind(adapter);
  return {
    engine: adapter.engine,
    start: (key, payload) => guarded(key, () => adapter.start(key, payload), deep),
    // An observation that cannot be redacted is unknown, as one that did not come back: the run keeps polling.
    observe: async (key, incarnation) => {
      try {
        return await guarded(key, () => adapter.observe(key, incarnation), deep);
      } catch (error) {
        if (!(error instanceof UnredactableAnswerError)) throw error;
        return {
          observedAtMs: context.clock.nowMs(),
          state: 'unknown',
          cause: 'transport',
          detail: UNREDACTABLE,
        };
      }
    },
    ...(find ? { find: (key: string) => guarded(key, () => find(key), deep) } : {}),
    // Facts of a cancel that never left (`requested: false`) are the adapter's own: kept as they are, so a
    // credential that cannot be loaded now leaves "not requested" on the run, not a made-up request.
    cancel: (key, incarnation) =>
      guarded(
        key,
        () => adapter.cancel(key, incarnation),
        deep,
        (facts) => !facts.requested,
      ),
    listArtifacts: (key, incarnation) => guarded(key, () => adapter.listArtifacts(key, incarnation), deep),
    openArtifact: (key, incarnation, path) =>
      guarded(
        key,
        () => adapter.openArtifact(key, incarnation, path),
        (artifact) => redactArtifact(artifact, redact),
      ),
    ...(verifyCallback
      ? { verifyCallback: (request) => guarded(undefined, () => verifyCallback(request), deep) }
      : {}),
  };
}
