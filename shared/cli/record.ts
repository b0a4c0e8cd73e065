/**
 * `wf run start WORKFLOW --record DIR`: runs it to the end against a local stack that talks to Claude
 * (started with ANTHROPIC_API_KEY) and saves the conversation as `DIR/<workflow>.fixture.json`, to replay
 * offline (`wf local up --fixtures DIR`) with drift checks (docs/local-development.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedFixture } from '../model/scripted-fixture.ts';
import type { Run } from '../schemas/run.ts';
import type { ApiClient } from './client.ts';
import type { Output } from './commands.ts';

export function saveRecording(client: ApiClient, dir: string, out: Output) {
  return async (run: Run) => {
    const { fixture } = await client.get<{ fixture: ScriptedFixture }>(`/local/runs/${run.runId}/recording`);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${run.workflowName}.fixture.json`);
    writeFileSync(path, `${JSON.stringify(fixture, null, 2)}\n`);
    out.line(`recorded ${fixture.turns.length} turn(s) to ${path}`);
  };
}
