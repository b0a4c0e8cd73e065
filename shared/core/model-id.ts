/**
 * Model ids as the Anthropic API and Amazon Bedrock spell them, reduced to one family name so that prices
 * and request styles are looked up once for both providers.
 *
 * Bedrock ids (https://docs.aws.amazon.com/bedrock/latest/userguide/models-supported.html) are
 * `anthropic.<name>-<YYYYMMDD>-v<N>[:<M>[:<context>]]`, and system inference profiles prefix a
 * geography or `global` (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html):
 * `us.anthropic.…`, `eu.…`, `apac.…`, `us-gov.…`, `global.anthropic.…`.
 */

// An optional geography/global profile prefix, then the `anthropic.` provider segment.
const BEDROCK_PREFIX = /^(?:[a-z]{2,6}(?:-[a-z]{2,6})?\.)?anthropic\./;
// Bedrock's model version: `-v1`, `-v1:0`, `-v1:0:200k`.
const BEDROCK_VERSION = /-v\d+(?::[0-9a-z]+){0,2}$/;
const SNAPSHOT_DATE = /-\d{8}$/;

/** Whether an id is a Bedrock model or system inference-profile id (it names the `anthropic.` provider). */
export const isBedrockModelId = (model: string): boolean => BEDROCK_PREFIX.test(model);

/**
 * The Anthropic name of a model id, without a Bedrock profile prefix, provider segment, Bedrock version or
 * snapshot date: `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5`. Anything it does not
 * recognise is returned unchanged, so an unknown id stays unknown (callers fail closed on it).
 */
export function bareModelId(model: string): string {
  if (!isBedrockModelId(model)) return model.replace(SNAPSHOT_DATE, '');
  return model.replace(BEDROCK_PREFIX, '').replace(BEDROCK_VERSION, '').replace(SNAPSHOT_DATE, '');
}
