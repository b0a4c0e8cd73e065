/**
 * `wf fixture init WORKFLOW_FILE [--out FILE]`: a starting scripted-model fixture for a workflow, written to
 * `fixtures/<name>.fixture.json` beside the file (where `wf local up` run in that directory finds it).
 * It checks that the model is offered the workflow's actions and ends the run with a text answer, so the
 * workflow runs offline to `done` as it is; docs/local-development.md shows how to script tool calls.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isAgentDefinition } from '../schemas/any-workflow.ts';
import { parseWorkflowText } from '../workflow-file/index.ts';
import { type Output, UsageError } from './commands.ts';

/** The starting fixture of an agent workflow with these actions. */
export function startingFixture(name: string, actions: string[]) {
  return {
    name,
    turns: [
      {
        expect: { toolsInclude: actions },
        text: `(scripted) ${name} ran offline: the model was offered ${actions.length ? actions.join(', ') : 'no actions'}. Replace this turn with the tool calls and answers you expect (docs/scripted-model.md), or record a real conversation (wf run start ${name} --record DIR).`,
      },
    ],
  };
}

export function fixtureInit(file: string, options: { out?: string; force?: boolean }, out: Output): number {
  // A missing file is an error (exit 1), as for `wf workflow apply`, not a usage mistake.
  if (!existsSync(file)) throw new Error(`no workflow file ${file}`);
  const parsed = parseWorkflowText(readFileSync(file, 'utf8'));
  if (!parsed.ok) {
    out.data({ ok: false, file, errors: parsed.errors });
    out.line(`${file}: invalid workflow definition`);
    for (const error of parsed.errors) out.line(`  - ${error.path}: ${error.message}`);
    return 1;
  }
  const definition = parsed.definition;
  if (!isAgentDefinition(definition))
    throw new UsageError(`${file} is a ${definition.kind} workflow: only agent workflows call the model`);
  const target = options.out ?? join(dirname(file), 'fixtures', `${definition.name}.fixture.json`);
  if (existsSync(target) && !options.force)
    throw new UsageError(`${target} exists: pass --force to replace it`);
  const fixture = startingFixture(definition.name, definition.allowedActions);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(fixture, null, 2)}\n`);
  out.data({ file: target, fixture });
  out.line(
    `wrote ${target} (fixture "${definition.name}", 1 turn; served by wf local up started in ${dirname(file)})`,
  );
  return 0;
}
