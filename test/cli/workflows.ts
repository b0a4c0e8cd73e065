/** The workflow files and scripted-model fixtures the CLI tests (and docs/cli.md's examples) use. */
import type { ScriptedFixture } from '../../shared/model/index.ts';

export const APPROVER = 'editor@example.com';

/** On demand, one ungated built-in action: a run that ends `done`. */
export const NOTES_WORKFLOW = `# yaml-language-server: $schema=../docs/workflow.schema.json
name: cli-notes
description: CLI test - records one note.
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Record what you are asked to record with notes_put.
allowedActions: [notes_put]
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4 }
`;

export const NOTE_VALUE = 'hello from the cli';

export const notesFixture: ScriptedFixture = {
  name: 'cli-notes',
  turns: [
    {
      expect: { tools: ['notes_put'] },
      response: {
        content: [
          { type: 'text', text: 'Recording the note.' },
          {
            type: 'tool_use',
            id: 'toolu_note',
            name: 'notes_put',
            input: { name: 'summary', value: NOTE_VALUE },
          },
        ],
        usage: { input_tokens: 400, output_tokens: 40 },
      },
    },
    {
      expect: { toolResults: [{ toolUseId: 'toolu_note', isError: false }] },
      response: {
        content: [{ type: 'text', text: 'Recorded the note.' }],
        usage: { input_tokens: 500, output_tokens: 10 },
      },
    },
  ],
} as ScriptedFixture;

/** On demand; the model's API refuses every call (HTTP 400, not retryable): a run that ends `failed`. */
export const BROKEN_WORKFLOW = `name: cli-broken
model: { id: claude-sonnet-5-5 }
prompt: { system: Say hello. }
allowedActions: [current_time]
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 2 }
`;

export const brokenFixture: ScriptedFixture = {
  name: 'cli-broken',
  turns: [{ error: { status: 400, message: 'scripted: this request is refused' } }],
} as ScriptedFixture;

/** On demand, `notes_append` gated `needs_approval`. */
export const GATED_WORKFLOW = `name: cli-gated
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Append the line you are asked to append with notes_append.
allowedActions: [notes_append]
gates:
  notes_append: needs_approval
approvals:
  approvers: [${APPROVER}]
  timeoutSeconds: 600
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4 }
`;

export const gatedFixture: ScriptedFixture = {
  name: 'cli-gated',
  turns: [
    {
      response: {
        content: [
          { type: 'text', text: 'The line goes into the log.' },
          {
            type: 'tool_use',
            id: 'toolu_append',
            name: 'notes_append',
            input: { name: 'log', line: 'deployed 2.4' },
          },
        ],
      },
    },
    { text: 'Appended the line.' },
  ],
} as ScriptedFixture;

/** Started by an event (source com.example.cli, detail-type Ping). */
export const EVENT_WORKFLOW = `name: cli-events
model: { id: claude-sonnet-5-5 }
prompt: { system: Answer the ping in the trigger input. }
allowedActions: [current_time]
trigger:
  type: event
  pattern:
    source: [com.example.cli]
    detail-type: [Ping]
budget: { maxUsdPerRun: 1, maxTurns: 2 }
`;

export const eventFixture: ScriptedFixture = {
  name: 'cli-events',
  turns: [{ text: 'pong' }],
} as ScriptedFixture;

/** Five field errors at once. */
export const BAD_WORKFLOW = `name: Bad Name
model: { role: huge }
prompt: { system: "" }
allowedActions: [launch_rockets]
trigger: { type: on_demand }
budget: { maxUsdPerRun: 0 }
`;

export const ALL_FIXTURES = [notesFixture, brokenFixture, gatedFixture, eventFixture];
