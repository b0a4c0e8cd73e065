/**
 * `wf workflow apply -f FILE --draft` (save FILE as the workflow's draft: a new draft, or the open draft
 * replaced in place) and `wf workflow publish WORKFLOW` (publish the open draft: runs and triggers use it).
 */
import { readFileSync } from 'node:fs';
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import { parseWorkflowText } from '../workflow-file/index.ts';
import type { ApiClient } from './client.ts';
import { findWorkflow, type Output, UsageError } from './commands.ts';

type Saved = { workflow: WorkflowHead; version: WorkflowVersion };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Saves FILE as a draft of the existing workflow it names; the draft is not run until published. */
export async function applyDraft(client: ApiClient, file: string, out: Output): Promise<number> {
  const text = readFileSync(file, 'utf8');
  const parsed = parseWorkflowText(text);
  if (!parsed.ok) {
    out.data({ ok: false, file, errors: parsed.errors });
    out.line(`${file}: invalid workflow definition`);
    for (const error of parsed.errors) out.line(`  - ${error.path}: ${error.message}`);
    return 1;
  }
  const { name } = parsed.definition;
  let head: WorkflowHead;
  try {
    head = await findWorkflow(client, name);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(
      `no workflow named '${name}' yet: apply without --draft to create it (version 1 is published)`,
    );
  }
  const contentType = /\.ya?ml$/.test(file) ? 'application/yaml' : 'application/json';
  const base = `/v1/workflows/${head.workflowId}/versions`;
  const current = head.draftVersion ?? head.latestVersion;
  const { version } = await client.get<{ version: WorkflowVersion }>(`${base}/${current}`);
  if (same(version.definition, parsed.definition)) {
    out.data({ workflow: head, version, unchanged: true });
    out.line(`${name} (${head.workflowId}) is unchanged at ${version.status} version ${version.version}`);
    return 0;
  }
  const saved =
    head.draftVersion === undefined
      ? (
          await client.post<Saved>(`${base}?draft=true`, text, {
            contentType,
            headers: { 'If-Match': String(head.latestVersion) },
          })
        ).body
      : (await client.put<Saved>(`${base}/${head.draftVersion}`, text, { contentType })).body;
  out.data(saved);
  out.line(
    `saved ${name} (${head.workflowId}) draft version ${saved.version.version}; runs use version ${saved.workflow.latestVersion} until: wf workflow publish ${name}`,
  );
  return 0;
}

/** Publishes the open draft (there is at most one). */
export async function publishWorkflow(client: ApiClient, ref: string, out: Output): Promise<number> {
  const head = await findWorkflow(client, ref);
  const version = head.draftVersion;
  if (version === undefined) {
    throw new UsageError(`${head.name} has no open draft: save one with wf workflow apply -f FILE --draft`);
  }
  const { body } = await client.post<Saved>(`/v1/workflows/${head.workflowId}/versions/${version}/publish`);
  out.data(body);
  out.line(
    `published ${head.name} (${head.workflowId}) version ${body.version.version}: new runs and triggers use it`,
  );
  return 0;
}
