/**
 * `wf workflow enable|disable|delete WORKFLOW`, `wf workflow validate -f FILE` (offline, against the schema)
 * and `wf workflow diff -f FILE` (the change FILE would make against the latest version).
 */
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import { parseWorkflowText } from '../workflow-file/index.ts';
import type { ApiClient } from './client.ts';
import type { Colours } from './colour.ts';
import { findWorkflow, type Output, UsageError } from './commands.ts';

export async function setWorkflowState(
  client: ApiClient,
  ref: string,
  action: 'enable' | 'disable' | 'delete',
  out: Output,
): Promise<number> {
  const workflow = await findWorkflow(client, ref);
  const path = `/v1/workflows/${workflow.workflowId}`;
  const { body } =
    action === 'delete'
      ? await client.request<{ workflow: WorkflowHead }>('DELETE', path)
      : await client.post<{ workflow: WorkflowHead }>(`${path}/${action}`);
  out.data(body);
  const state = body.workflow.deleted
    ? 'deleted (its name is free again)'
    : body.workflow.enabled
      ? 'enabled'
      : 'disabled';
  out.line(`${body.workflow.name} (${body.workflow.workflowId}) ${state}`);
  return 0;
}

function parseFile(file: string, out: Output) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // A file that cannot be read is an error (exit 1), as for `wf workflow apply`, not a usage mistake.
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = parseWorkflowText(text);
  if (!parsed.ok) {
    out.data({ ok: false, file, errors: parsed.errors });
    out.line(`${file}: invalid workflow definition`);
    for (const error of parsed.errors) out.line(`  - ${error.path}: ${error.message}`);
  }
  return parsed;
}

export function validateWorkflowFile(file: string, out: Output, c: Colours): number {
  const parsed = parseFile(file, out);
  if (!parsed.ok) return 1;
  out.data({ ok: true, file, definition: parsed.definition });
  out.line(
    `${c.green('valid')}: ${file} (${parsed.definition.kind ?? 'agent'} workflow ${parsed.definition.name})`,
  );
  return 0;
}

/** Leaf paths of a JSON value, each with its canonical JSON text. */
function leaves(value: unknown, path = '', into = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object' && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) leaves(child, path ? `${path}.${key}` : key, into);
  } else if (value !== undefined) into.set(path || '(root)', canonicalize(value) ?? 'null');
  return into;
}

/** The changed leaves between two definitions: `- path: old`, `+ path: new`. */
export function definitionDiff(before: unknown, after: unknown): string[] {
  const a = leaves(before);
  const b = leaves(after);
  const lines: string[] = [];
  for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (a.get(path) === b.get(path)) continue;
    if (a.has(path)) lines.push(`- ${path}: ${a.get(path)}`);
    if (b.has(path)) lines.push(`+ ${path}: ${b.get(path)}`);
  }
  return lines;
}

export async function diffWorkflow(
  client: ApiClient,
  file: string,
  out: Output,
  c: Colours,
): Promise<number> {
  const parsed = parseFile(file, out);
  if (!parsed.ok) return 1;
  let head: WorkflowHead | undefined;
  try {
    head = await findWorkflow(client, parsed.definition.name);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
  }
  const current = head
    ? (await client.get<{ version: WorkflowVersion }>(`/v1/workflows/${head.workflowId}`)).version
    : undefined;
  const lines = definitionDiff(current?.definition ?? {}, parsed.definition);
  out.data({ workflow: parsed.definition.name, latestVersion: current?.version ?? null, changes: lines });
  if (!current) out.line(`${parsed.definition.name} does not exist yet: wf workflow apply creates version 1`);
  else if (lines.length === 0) out.line(`${parsed.definition.name} v${current.version}: no change`);
  else out.line(`${parsed.definition.name} v${current.version} → v${current.version + 1}:`);
  for (const line of lines) out.line(line.startsWith('-') ? c.red(line) : c.green(line));
  return 0;
}
