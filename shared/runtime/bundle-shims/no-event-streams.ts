/**
 * What the Lambda bundles take in place of `@smithy/core/event-streams` (an esbuild alias:
 * `LAMBDA_BUNDLE_ALIASES` in infra/constructs/runtime-function.ts).
 *
 * The AWS SDK's HTTP protocols `import()` that module only to send or read an operation's event stream
 * (`HttpProtocol.loadEventStreamCapability`, called when an operation's input or output has an event-stream
 * member). None of the operations of the clients the runtime uses has one (DynamoDB, Step Functions,
 * EventBridge, EventBridge Scheduler, SNS, Secrets Manager, KMS, STS: `test/infra/event-streams.test.ts`
 * checks every command's schema). But a dynamically imported module makes esbuild wrap it and everything it
 * imports in lazily initialized modules, ~160 of `@smithy/core` in every bundle, each compiled twice at a cold
 * start (docs/deploy.md, "Function bundles"). Reached anyway, this fails loudly instead of sending a request
 * without its stream.
 */
function notBundled(): never {
  throw new Error(
    'AWS SDK event streams are not bundled in the Lambda functions (shared/runtime/bundle-shims/no-event-streams.ts): ' +
      'an operation with an event stream needs the alias removed in infra/constructs/runtime-function.ts',
  );
}

/** The two names `HttpProtocol.loadEventStreamCapability` takes from the module; each throws when used. */
export const EventStreamSerde = notBundled;
export const eventStreamSerdeProvider = notBundled;
