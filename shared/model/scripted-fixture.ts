/**
 * The fixture format of the scripted Messages-API server (docs/scripted-model.md): which response
 * each model turn gets, what the request for that turn must look like, and scripted API errors.
 */
import * as z from '../zod.ts';
import { ScriptedFixtureError } from './errors.ts';

const TextBlockSchema = z.strictObject({ type: z.literal('text'), text: z.string() });

const ToolUseBlockSchema = z.strictObject({
  type: z.literal('tool_use'),
  id: z
    .optional(z.string().check(z.minLength(1)))
    .check(z.describe('Tool-use id; when omitted: toolu_<fixture>_<turn>_<block index>.')),
  name: z.string().check(z.minLength(1)),
  input: z._default(z.record(z.string(), z.unknown()), {}).check(z.describe('The tool input object.')),
});

const ThinkingBlockSchema = z.strictObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z._default(z.string(), 'scripted-signature'),
});

const RedactedThinkingBlockSchema = z.strictObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});

const ResponseBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ToolUseBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
]);

const UsageSchema = z
  .strictObject({
    input_tokens: z.optional(z.number().check(z.int(), z.nonnegative())),
    output_tokens: z.optional(z.number().check(z.int(), z.nonnegative())),
    cache_creation_input_tokens: z.optional(z.number().check(z.int(), z.nonnegative())),
    cache_read_input_tokens: z.optional(z.number().check(z.int(), z.nonnegative())),
  })
  .check(
    z.describe(
      'Reported usage. Without any input count stated, the input is split by the prompt-cache accounting; with one, missing input is the whole request and missing cache counts are 0. Missing output is estimated (1 token per 4 characters).',
    ),
  );

const StopReasonSchema = z.enum([
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

const ResponseSchema = z.strictObject({
  content: z.array(ResponseBlockSchema),
  stop_reason: z
    .optional(StopReasonSchema)
    .check(z.describe('Defaults to tool_use when the content has a tool_use block, else end_turn.')),
  usage: z.optional(UsageSchema),
});

const ToolResultExpectSchema = z
  .strictObject({
    toolUseId: z.optional(z.string()).check(z.describe('The tool_use id whose result is checked.')),
    toolName: z.optional(z.string()).check(z.describe('Or: the most recent result of a call to this tool.')),
    contains: z
      .optional(z.string())
      .check(z.describe('The tool_result content must contain this substring.')),
    isError: z.optional(z.boolean()).check(z.describe('is_error must equal this (absent counts as false).')),
  })
  .check(
    z.refine((value) => (value.toolUseId === undefined) !== (value.toolName === undefined), {
      message: 'give exactly one of toolUseId and toolName',
    }),
  );

const RecordedRequestSchema = z
  .strictObject({
    model: z.optional(z.string()),
    system: z.optional(z.string()).check(z.describe('The system prompt text as recorded.')),
    tools: z
      .optional(z.array(z.string()))
      .check(z.describe('The tool names offered, as recorded (order-insensitive).')),
    firstUser: z
      .optional(z.string())
      .check(z.describe('The text of the first user message (the task) as recorded.')),
  })
  .check(
    z.describe(
      'The request as recorded (`wf run start --record`): a replayed request that differs in one of these fields is drift, reported by field name.',
    ),
  );

const ExpectSchema = z
  .strictObject({
    tools: z
      .optional(z.array(z.string()))
      .check(z.describe('Exact set of tool names offered (order-insensitive).')),
    toolsInclude: z.optional(z.array(z.string())).check(z.describe('Tool names that must be offered.')),
    toolsExclude: z.optional(z.array(z.string())).check(z.describe('Tool names that must not be offered.')),
    toolResults: z.optional(z.array(ToolResultExpectSchema)),
    systemContains: z
      .optional(z.string())
      .check(z.describe('The system prompt must contain this substring.')),
    lastUserContains: z
      .optional(z.string())
      .check(
        z.describe(
          'The text of the last user message (text blocks and tool_result contents) must contain this.',
        ),
      ),
    model: z.optional(z.string()).check(z.describe('The request model must equal this.')),
    recorded: z.optional(RecordedRequestSchema),
  })
  .check(z.describe('Checks on the request of this turn; a mismatch is an HTTP 400 and a recorded failure.'));

const ErrorSchema = z
  .strictObject({
    status: z.number().check(z.int(), z.gte(400), z.lte(599)),
    type: z
      .optional(z.string())
      .check(z.describe('API error type; defaults from the status (429 → rate_limit_error …).')),
    message: z.optional(z.string()),
    times: z
      .optional(z.number().check(z.int(), z.positive()))
      .check(
        z.describe(
          'Fail only the first n attempts of this turn (per conversation state); later ones are served.',
        ),
      ),
    inStream: z
      .optional(z.boolean())
      .check(z.describe('For streaming requests: answer 200, then send the error as an SSE `error` event.')),
  })
  .check(z.describe('A scripted API error for this turn.'));

const TurnSchema = z
  .strictObject({
    expect: z.optional(ExpectSchema),
    text: z
      .optional(z.string())
      .check(z.describe('Shorthand: an end_turn response with this text and estimated usage.')),
    response: z.optional(ResponseSchema),
    error: z.optional(ErrorSchema),
  })
  .check(
    z.superRefine((turn, ctx) => {
      const served = turn.text !== undefined || turn.response !== undefined;
      if (turn.text !== undefined && turn.response !== undefined) {
        ctx.addIssue({ code: 'custom', message: 'give either text or response, not both' });
      }
      const alwaysFails = turn.error !== undefined && turn.error.times === undefined;
      if (!served && !alwaysFails) {
        ctx.addIssue({
          code: 'custom',
          message: 'a turn needs text or response (unless its error has no times)',
        });
      }
    }),
  );

/** A scripted conversation: turn i answers the request that holds i assistant messages. */
export const ScriptedFixtureSchema = z
  .strictObject({
    $schema: z.optional(z.string()),
    name: z
      .optional(z.string().check(z.regex(/^[A-Za-z0-9_-]+$/)))
      .check(
        z.describe(
          'Selects the fixture with the x-scripted-fixture header; required when several are served.',
        ),
      ),
    conversation: z
      .optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/)))
      .check(
        z.describe(
          'One recorded conversation of the workflow (`wf run start --record-name`, or a hash of its first user message): several fixtures may share a name when each has its own conversation, and the server answers with the one whose recorded first user message matches the request.',
        ),
      ),
    turns: z.array(TurnSchema).check(z.minLength(1)),
  })
  .check(z.describe('A scripted-model fixture (docs/scripted-model.md).'));

export type ScriptedFixture = z.input<typeof ScriptedFixtureSchema>;
export type ParsedFixture = z.output<typeof ScriptedFixtureSchema>;
export type ScriptedTurn = ParsedFixture['turns'][number];
export type ScriptedExpect = NonNullable<ScriptedTurn['expect']>;
export type ScriptedResponseBlock = z.output<typeof ResponseBlockSchema>;

/** The fixture JSON Schema, as committed in docs/fixture.schema.json. */
export function fixtureJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ScriptedFixtureSchema, { io: 'input' }) as Record<string, unknown>;
}

/** Where a fixture is kept among those served: its name, and its conversation when it has one. */
export const fixtureKey = (fixture: { name?: string | undefined; conversation?: string | undefined }) =>
  `${fixture.name ?? 'default'}${fixture.conversation === undefined ? '' : `#${fixture.conversation}`}`;

/** The fixture name a key stands for. */
export const nameOfKey = (key: string) => key.split('#')[0] ?? key;

/**
 * Validates fixtures and keys them by name (and conversation): a lone unnamed fixture is `default`; several
 * need names, unique unless each is a different conversation of the same workflow.
 */
export function loadFixtures(input: ScriptedFixture | ScriptedFixture[]): Map<string, ParsedFixture> {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) throw new ScriptedFixtureError('scripted-model: no fixtures given');
  const fixtures = new Map<string, ParsedFixture>();
  list.forEach((raw, i) => {
    const parsed = ScriptedFixtureSchema.safeParse(raw);
    if (!parsed.success) {
      throw new ScriptedFixtureError(`scripted-model: fixture #${i} is invalid: ${parsed.error.message}`, {
        cause: parsed.error,
      });
    }
    const name = parsed.data.name ?? (list.length === 1 ? 'default' : undefined);
    if (name === undefined) throw new ScriptedFixtureError(`scripted-model: fixture #${i} needs a name`);
    const key = fixtureKey({ name, conversation: parsed.data.conversation });
    if (fixtures.has(key))
      throw new ScriptedFixtureError(
        parsed.data.conversation === undefined
          ? `scripted-model: two fixtures are named "${name}"`
          : `scripted-model: two fixtures of "${name}" are conversation "${parsed.data.conversation}"`,
      );
    fixtures.set(key, { ...parsed.data, name });
  });
  return fixtures;
}
