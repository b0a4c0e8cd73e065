export { type AnthropicModelOptions, createAnthropicModel, DEFAULT_MODEL_TIMEOUT_MS } from './anthropic.ts';
export { fromMessage, toCreateParams } from './anthropic-mapping.ts';
export {
  BEDROCK_ANTHROPIC_VERSION,
  type BedrockModelOptions,
  checkBedrockModelId,
  createBedrockModel,
  type StaticAwsCredentials,
} from './bedrock.ts';
export * from './errors.ts';
export {
  DEFAULT_MODEL_CONFIG,
  type ModelConfig,
  type ModelRole,
  modelConfig,
  resolveModel,
} from './resolve.ts';
export {
  fixtureJsonSchema,
  type ScriptedExpect,
  type ScriptedFixture,
  ScriptedFixtureSchema,
  type ScriptedTurn,
} from './scripted-fixture.ts';
export {
  FIXTURE_HEADER,
  type RecordedRequest,
  type ScriptedFailure,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  startScriptedModelServer,
} from './scripted-server.ts';
export { toModelError } from './sdk-errors.ts';
export {
  MIN_ANSWER_TOKENS,
  THINKING_BUDGETS,
  type ThinkingParams,
  type ThinkingStyle,
  thinkingParams,
  thinkingStyleFor,
} from './thinking.ts';
